// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover.c - which targets of a host to scan, and why. No I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"

const char *discover_transport_name(enum discover_transport t)
{
	switch (t) {
	case DISCOVER_ISCSI:
		return "iSCSI";
	case DISCOVER_FC:
		return "FC";
	case DISCOVER_SAS:
		return "SAS";
	default:
		return "none (probed)";
	}
}

void discover_init(struct discover *d, const struct discover_input *in)
{
	memset(d, 0, sizeof(*d));
	d->in = *in;
	d->channel = in->channel >= 0 ? (unsigned int)in->channel : 0;
	d->id = in->id >= 0 ? (unsigned int)in->id : 0;
}

static void act(struct discover_action *a, enum discover_action_kind kind, unsigned int channel,
		unsigned int id, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void act(struct discover_action *a, enum discover_action_kind kind, unsigned int channel,
		unsigned int id, const char *fmt, ...)
{
	va_list ap;

	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->channel = channel;
	a->id = id;
	va_start(ap, fmt);
	vsnprintf(a->reason, sizeof(a->reason), fmt, ap);
	va_end(ap);
}

static bool selected(const struct discover_input *in, unsigned int channel, unsigned int id)
{
	return (in->channel < 0 || (unsigned int)in->channel == channel) &&
	       (in->id < 0 || (unsigned int)in->id == id);
}

/* Appends to an action's reason. */
static void say_more(struct discover_action *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say_more(struct discover_action *a, const char *fmt, ...)
{
	size_t used = strlen(a->reason);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->reason + used, sizeof(a->reason) - used, fmt, ap);
	va_end(ap);
}

/* Other entries of the list for the same target (the list is sorted by
 * channel and id): one target is tried once, whatever lists it. Return:
 * how many were passed over. */
static unsigned int skip_same_target(struct discover *d, const struct discover_target *t)
{
	const struct discover_input *in = &d->in;
	unsigned int n = 0;

	while (d->next < in->ntargets) {
		const struct discover_target *u = &in->targets[d->next];

		if (!u->has_id || u->channel != t->channel || u->id != t->id)
			break;
		d->next++;
		n += u->is_target;
	}
	return n;
}

/* A transport's targets: each listed one once, nothing else. */
static void step_listed(struct discover *d, enum discover_outcome last, struct discover_action *a)
{
	const struct discover_input *in = &d->in;
	const char *tn = discover_transport_name(in->transport);

	if (last == DISCOVER_OUT_FOUND)
		d->found++;
	while (d->next < in->ntargets) {
		const struct discover_target *t = &in->targets[d->next++];

		if (!t->is_target || (t->has_id && !selected(in, t->channel, t->id)))
			continue;
		if (!t->has_id) {
			/* Without an id the transport's user_scan skips it: only
			 * a whole-host scan can name it, as a failure. */
			if (in->id >= 0 ||
			    (in->channel >= 0 && (unsigned int)in->channel != t->channel))
				continue;
			act(a, DISCOVER_FAIL, t->channel, 0,
			    "%s %s (%s) is a target without a SCSI target id: the kernel cannot "
			    "scan it",
			    t->name, t->address, t->state);
			a->listed = true;
			d->acted++;
			return;
		}
		d->acted++;
		/* Of several entries for the target, one that can be reached. */
		for (size_t k = d->next; !t->reachable && k < in->ntargets; k++) {
			const struct discover_target *u = &in->targets[k];

			if (!u->has_id || u->channel != t->channel || u->id != t->id)
				break;
			if (u->is_target && u->reachable)
				t = u;
		}
		if (!t->reachable) {
			act(a, DISCOVER_FAIL, t->channel, t->id,
			    "listed by %s %s, but its state is %s: not reachable", t->name,
			    t->address, t->state);
			a->listed = true;
			skip_same_target(d, t);
			return;
		}
		act(a, DISCOVER_TRY, t->channel, t->id, "listed by %s %s (%s)", t->name, t->address,
		    t->state);
		a->listed = true;
		a->also_listed = skip_same_target(d, t);
		if (a->also_listed)
			say_more(a, "; and by %u more with the same target id", a->also_listed);
		return;
	}
	if (in->id >= 0 && d->acted == 0)
		act(a, DISCOVER_DONE, 0, 0,
		    "%s transport: no target %d:%d among the %zu its topology lists; an id it "
		    "does not list is never tried (its user_scan accepts any id)",
		    tn, in->channel < 0 ? 0 : in->channel, in->id, in->ntargets);
	else
		act(a, DISCOVER_DONE, 0, 0,
		    "%s transport: targets taken from its topology (%zu listed), no id probed: "
		    "its user_scan accepts any id",
		    tn, in->ntargets);
}

static void probe_next_channel(struct discover *d, struct discover_action *a, const char *why)
{
	const struct discover_input *in = &d->in;

	if (in->channel >= 0) {
		act(a, DISCOVER_DONE, 0, 0, "probed channel %u (%s): %u target(s)", d->channel, why,
		    d->found);
		return;
	}
	if (d->channel + 1 >= DISCOVER_CHANNELS_MAX) {
		act(a, DISCOVER_DONE, 0, 0,
		    "probed channels 0-%u (%s) and stopped at the bound of %u channels: %u "
		    "target(s)",
		    d->channel, why, DISCOVER_CHANNELS_MAX, d->found);
		a->failed = true;
		return;
	}
	d->channel++;
	d->id = in->id >= 0 ? (unsigned int)in->id : 0;
	d->empty = 0;
	d->channel_accepted = false;
	act(a, DISCOVER_TRY, d->channel, d->id, "probed: channel %u, id %u", d->channel, d->id);
}

/* No transport: ids and channels until the host refuses them. */
static void step_probe(struct discover *d, enum discover_outcome last, struct discover_action *a)
{
	const struct discover_input *in = &d->in;
	char why[96];

	if (!d->started) {
		d->started = true;
		act(a, DISCOVER_TRY, d->channel, d->id, "probed: channel %u, id %u", d->channel,
		    d->id);
		return;
	}
	if (last == DISCOVER_OUT_LIMIT) {
		if (d->channel_accepted) {
			snprintf(why, sizeof(why), "id %u refused (EINVAL)", d->id);
			probe_next_channel(d, a, why);
			return;
		}
		if (in->channel >= 0 && in->id >= 0) {
			act(a, DISCOVER_DONE, 0, 0,
			    "channel %u, target %u is past the host's limits (EINVAL)", d->channel,
			    d->id);
			a->failed = true;
			return;
		}
		if (d->channel == 0 || d->channel == (unsigned int)in->channel)
			act(a, DISCOVER_DONE, 0, 0,
			    "probed: the host refused channel %u, id %u (EINVAL): %u target(s)",
			    d->channel, d->id, d->found);
		else
			act(a, DISCOVER_DONE, 0, 0,
			    "probed channels 0-%u, each until the host refused an id (EINVAL); "
			    "channel %u refused: %u target(s)",
			    d->channel - 1, d->channel, d->found);
		return;
	}
	d->channel_accepted = true;
	if (last == DISCOVER_OUT_FOUND) {
		d->found++;
		d->empty = 0;
	} else {
		d->empty++;
	}
	if (in->id >= 0) {
		snprintf(why, sizeof(why), "only id %u selected", d->id);
		probe_next_channel(d, a, why);
		return;
	}
	if (d->empty >= DISCOVER_EMPTY_IDS_MAX) {
		/* A host that refuses no id refuses no channel either. */
		act(a, DISCOVER_DONE, 0, 0,
		    "probed channel %u up to id %u: %u ids in a row without a target and none "
		    "refused, so the host checks no limits; later channels not probed: %u "
		    "target(s)",
		    d->channel, d->id, DISCOVER_EMPTY_IDS_MAX, d->found);
		return;
	}
	if (d->id + 1 >= DISCOVER_IDS_MAX) {
		act(a, DISCOVER_DONE, 0, 0,
		    "probed channel %u and stopped at the bound of %u ids: %u target(s)",
		    d->channel, DISCOVER_IDS_MAX, d->found);
		a->failed = true;
		return;
	}
	d->id++;
	act(a, DISCOVER_TRY, d->channel, d->id, "probed: channel %u, id %u", d->channel, d->id);
}

/*
 * A dry run's one selected target with nothing attached: tried when the
 * host probes, or when its transport lists it as reachable. Return: whether
 * @a holds a TRY.
 */
static bool look_at_selected(struct discover *d, struct discover_action *a)
{
	const struct discover_input *in = &d->in;
	unsigned int channel = (unsigned int)in->channel, id = (unsigned int)in->id;
	const struct discover_target *found = NULL;
	unsigned int more = 0;

	if (in->ata_port)
		return false;
	if (in->transport == DISCOVER_PROBE) {
		act(a, DISCOVER_TRY, channel, id,
		    "selected; nothing of it is attached (dry run: looked at through a LUN "
		    "attached for the look)");
		a->look = true;
		return true;
	}
	for (size_t k = 0; k < in->ntargets; k++) {
		const struct discover_target *t = &in->targets[k];

		if (!t->is_target || !t->has_id || !t->reachable || t->channel != channel ||
		    t->id != id)
			continue;
		if (found)
			more++;
		else
			found = t;
	}
	if (!found)
		return false;
	act(a, DISCOVER_TRY, channel, id,
	    "listed by %s %s (%s); nothing of it is attached (dry run: looked at through a "
	    "LUN attached for the look)",
	    found->name, found->address, found->state);
	a->listed = true;
	a->also_listed = more;
	a->look = true;
	return true;
}

/* A dry run: the targets with an attached LUN, then the listed ones that
 * cannot be reached. */
static void step_dry_run(struct discover *d, struct discover_action *a)
{
	const struct discover_input *in = &d->in;

	while (d->next < in->nattached) {
		const struct scsi_addr *x = &in->attached[d->next++];

		if (d->next > 1 && x->channel == x[-1].channel && x->id == x[-1].id)
			continue;
		if (!selected(in, x->channel, x->id))
			continue;
		d->looked = true;
		act(a, DISCOVER_TRY, x->channel, x->id, "a LUN of it is attached (dry run)");
		a->probe_lun = x->lun;
		for (size_t k = 0; k < in->ntargets; k++) {
			const struct discover_target *t = &in->targets[k];

			if (t->has_id && t->channel == x->channel && t->id == x->id)
				snprintf(a->reason, sizeof(a->reason), "listed by %s %s (%s)",
					 t->name, t->address, t->state);
		}
		return;
	}
	if (in->look && !d->looked && in->channel >= 0 && in->id >= 0) {
		d->looked = true;
		if (look_at_selected(d, a))
			return;
	}
	while (d->listed_next < in->ntargets) {
		const struct discover_target *t = &in->targets[d->listed_next++];

		if (!t->is_target || !t->has_id || t->reachable || !selected(in, t->channel, t->id))
			continue;
		act(a, DISCOVER_FAIL, t->channel, t->id,
		    "listed by %s %s, but its state is %s: not reachable", t->name, t->address,
		    t->state);
		a->listed = true;
		return;
	}
	act(a, DISCOVER_DONE, 0, 0,
	    "transport %s; dry run: only targets with an attached LUN%s are looked at",
	    discover_transport_name(in->transport), in->look ? ", and the one selected," : "");
}

void discover_step(struct discover *d, enum discover_outcome last, struct discover_action *next)
{
	/* A scan write would not probe: ata_scsi_user_scan() resets the port,
	 * which stalls every command on it, and libata has attached what the
	 * port has already. */
	if (d->in.ata_port && !d->in.dry_run)
		act(next, DISCOVER_DONE, 0, 0,
		    "libata port %s: libata attaches its devices itself, whatever "
		    "scsi_mod.scan says, and a scan write would reset the port: nothing "
		    "written",
		    d->in.ata_port);
	else if (d->in.dry_run)
		step_dry_run(d, next);
	else if (d->in.transport == DISCOVER_PROBE)
		step_probe(d, last, next);
	else
		step_listed(d, last, next);
}

long discover_iscsi_address(const char *address, size_t *iqn_len)
{
	const char *comma = strrchr(address, ',');

	*iqn_len = comma ? (size_t)(comma - address) : strlen(address);
	return comma ? strtol(comma + 1, NULL, 10) : -1;
}

size_t discover_empty_targets(const struct discover_target *targets, size_t ntargets,
			      const struct scsi_addr *attached, size_t nattached,
			      struct scsi_addr *out)
{
	size_t n = 0;

	for (size_t i = 0; i < ntargets; i++) {
		const struct discover_target *t = &targets[i];
		bool skip = !t->is_target || !t->has_id || !t->reachable;

		for (size_t k = 0; k < nattached && !skip; k++)
			skip = attached[k].channel == t->channel && attached[k].id == t->id;
		for (size_t k = 0; k < n && !skip; k++)
			skip = out[k].channel == t->channel && out[k].id == t->id;
		if (skip)
			continue;
		out[n] = (struct scsi_addr){ 0, t->channel, t->id, 0 };
		n++;
	}
	return n;
}

ssize_t discover_lunmask_targets(const struct discover_target *listed, size_t n,
				 enum discover_transport transport,
				 const struct lunmask_target *base, struct lunmask_target **ret,
				 char (**ret_iqns)[ISCSI_NAME_MAX + 16])
{
	char(*iqns)[ISCSI_NAME_MAX + 16];
	struct lunmask_target *t;
	size_t count = 0;

	*ret = NULL;
	*ret_iqns = NULL;
	t = calloc(n + 1, sizeof(*t));
	iqns = calloc(n + 1, sizeof(*iqns));
	if (!t || !iqns) {
		free(t);
		free(iqns);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct discover_target *lt = &listed[i];
		size_t len;

		if (!lt->has_id || lt->channel != base->channel || lt->id != base->id)
			continue;
		t[count] = *base;
		switch (transport) {
		case DISCOVER_FC:
			t[count].port_name = lt->address;
			break;
		case DISCOVER_SAS:
			t[count].sas_address = lt->address;
			break;
		case DISCOVER_ISCSI:
			t[count].iscsi_tpgt = discover_iscsi_address(lt->address, &len);
			snprintf(iqns[count], sizeof(iqns[count]), "%.*s", (int)len, lt->address);
			t[count].iscsi_target = iqns[count];
			break;
		case DISCOVER_PROBE:
			break;
		}
		count++;
	}
	if (!count)
		t[count++] = *base;
	*ret = t;
	*ret_iqns = iqns;
	return (ssize_t)count;
}
