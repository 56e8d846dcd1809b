// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sgio.c - the only file that issues SCSI commands: INQUIRY and REPORT LUNS
 * through SG_IO, with libsgutils2's pass-through objects.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luns.h"
#include "sgio.h"

#define RETRIES 3
/* The Linux midlayer's host byte for a command it timed out (DID_TIME_OUT). */
#define HOST_STATUS_DID_TIME_OUT 0x03

/*
 * libsgutils2 sets up some state on first use without a lock: the bsg
 * major from /proc/devices (a flag is set before the number is read, so a
 * second thread can take a bsg node for something else) and its warnings
 * stream. Done once, before any two threads can get there.
 */
static void sgutils_first_use(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	sg_set_warnings_strm(stderr);
	if (fd >= 0) {
		check_pt_file_handle(fd, "/dev/null", 0);
		close(fd);
	}
}

/* The bytes a command moved, from the residual the HBA reports; a
 * residual below 0 or past the buffer (seen from buggy drivers) is not
 * trusted to mean more data than was asked for. */
static size_t moved(size_t len, int resid)
{
	if (resid <= 0)
		return len;
	return (size_t)resid >= len ? 0 : len - (size_t)resid;
}

int sgio_open(const char *path, int *ret_fd)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int fd;

	pthread_once(&once, sgutils_first_use);
	fd = scsi_pt_open_flags(path, O_RDWR | O_NONBLOCK | O_CLOEXEC, 0);

	if (fd < 0)
		return fd;
	*ret_fd = fd;
	return 0;
}

void sgio_close(int fd)
{
	if (fd >= 0)
		scsi_pt_close_device(fd);
}

/* One command; the three-way result of the header. */
static int run_once(int fd, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len,
		    unsigned int timeout, size_t *ret_got, struct sgio_error *err)
{
	uint8_t sense_buf[64];
	struct sg_pt_base *pt;
	int r, cat, slen;

	memset(err, 0, sizeof(*err));
	pt = construct_scsi_pt_obj();
	if (!pt)
		return -ENOMEM;
	memset(sense_buf, 0, sizeof(sense_buf));
	set_scsi_pt_cdb(pt, cdb, cdb_len);
	set_scsi_pt_sense(pt, sense_buf, sizeof(sense_buf));
	set_scsi_pt_data_in(pt, buf, len);
	r = do_scsi_pt(pt, fd, timeout, 0);
	if (r < 0) {
		snprintf(err->text, sizeof(err->text), "SG_IO failed: %s", strerror(-r));
		goto out;
	}
	if (r == SCSI_PT_DO_TIMEOUT) {
		err->category = SG_LIB_CAT_TIMEOUT;
		snprintf(err->text, sizeof(err->text), "timed out after %u s", timeout);
		r = err->category;
		goto out;
	}
	if (r != SCSI_PT_DO_START_OK) {
		err->category = SG_LIB_CAT_OTHER;
		snprintf(err->text, sizeof(err->text), "pass-through refused (%d)", r);
		r = err->category;
		goto out;
	}
	cat = get_scsi_pt_result_category(pt);
	switch (cat) {
	case SCSI_PT_RESULT_GOOD:
		*ret_got = moved(len, get_scsi_pt_resid(pt));
		r = 0;
		break;
	case SCSI_PT_RESULT_SENSE:
		slen = get_scsi_pt_sense_len(pt);
		err->category = sg_err_category_sense(sense_buf, slen);
		if (sense_decode(sense_buf, slen, &err->sense) == 0) {
			err->has_sense = true;
			sense_describe(&err->sense, err->text, sizeof(err->text));
		} else {
			snprintf(err->text, sizeof(err->text), "CHECK CONDITION, no sense");
		}
		/* RECOVERED ERROR still moved the data. */
		if (err->category == SG_LIB_CAT_RECOVERED || err->category == SG_LIB_CAT_NO_SENSE) {
			*ret_got = moved(len, get_scsi_pt_resid(pt));
			r = 0;
			break;
		}
		r = err->category ? err->category : SG_LIB_CAT_OTHER;
		break;
	case SCSI_PT_RESULT_STATUS:
		err->category = SG_LIB_CAT_OTHER;
		snprintf(err->text, sizeof(err->text), "SCSI status 0x%02x",
			 get_scsi_pt_status_response(pt));
		if (get_scsi_pt_status_response(pt) == 0x08 /* BUSY */ ||
		    get_scsi_pt_status_response(pt) == 0x28 /* TASK SET FULL */)
			err->category = SG_LIB_CAT_BUSY;
		r = err->category;
		break;
	case SCSI_PT_RESULT_TRANSPORT_ERR: {
		char what[160];

		get_scsi_pt_transport_err_str(pt, sizeof(what), what);
		what[strcspn(what, "\n")] = '\0';
		/* The midlayer's own timeout comes back as host status
		 * DID_TIME_OUT; libsgutils2 1.46 on Linux reports the host
		 * status as the transport error, sg v3 and v4 alike. */
		if (get_scsi_pt_transport_err(pt) == HOST_STATUS_DID_TIME_OUT) {
			err->category = SG_LIB_CAT_TIMEOUT;
			snprintf(err->text, sizeof(err->text), "timed out after %u s (%s)", timeout,
				 what);
		} else {
			err->category = SG_LIB_CAT_OTHER;
			snprintf(err->text, sizeof(err->text), "transport error: %s", what);
		}
		r = err->category;
		break;
	}
	default:
		r = get_scsi_pt_os_err(pt);
		snprintf(err->text, sizeof(err->text), "%s", strerror(r ? r : EIO));
		r = -(r ? r : EIO);
		break;
	}
out:
	destruct_scsi_pt_obj(pt);
	return r;
}

static bool retryable(int r)
{
	return r == SG_LIB_CAT_UNIT_ATTENTION || r == SG_LIB_CAT_ABORTED_COMMAND ||
	       r == SG_LIB_CAT_BUSY;
}

static int run(int fd, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len,
	       unsigned int timeout, size_t *ret_got, struct sgio_error *err)
{
	int r;

	for (int i = 0;; i++) {
		r = run_once(fd, cdb, cdb_len, buf, len, timeout, ret_got, err);
		if (!retryable(r) || i == RETRIES)
			return r;
	}
}

int sgio_inquiry(int fd, uint8_t *buf, size_t len, unsigned int timeout, size_t *ret_got,
		 struct sgio_error *err)
{
	uint8_t cdb[6] = { 0x12, 0, 0, 0, 0, 0 };

	if (len > 255)
		len = 255;
	cdb[4] = (uint8_t)len;
	memset(buf, 0, len);
	return run(fd, cdb, sizeof(cdb), buf, len, timeout, ret_got, err);
}

/* The first allocation length of a VPD page: enough for nearly all. */
#define VPD_FIRST_LEN 1024

int sgio_inquiry_vpd(int fd, uint8_t page, uint8_t *buf, size_t len, unsigned int timeout,
		     size_t *ret_got, struct sgio_error *err)
{
	uint8_t cdb[6] = { 0x12, 1, page, 0, 0, 0 };
	size_t ask = len < VPD_FIRST_LEN ? len : VPD_FIRST_LEN, need;
	int r;

	if (len > 65535)
		len = 65535;
	/* Most pages are short: the whole length only when the page's own
	 * says it is longer than the first answer. */
	for (;;) {
		cdb[3] = (uint8_t)(ask >> 8);
		cdb[4] = (uint8_t)ask;
		memset(buf, 0, ask);
		r = run(fd, cdb, sizeof(cdb), buf, ask, timeout, ret_got, err);
		if (r != 0 || *ret_got < 4)
			return r;
		need = 4 + ((size_t)buf[2] << 8 | buf[3]);
		if (need <= ask || ask == len)
			return r;
		ask = need < len ? need : len;
	}
}

int sgio_report_luns(int fd, unsigned int timeout, uint8_t **ret_buf, size_t *ret_len,
		     struct sgio_error *err)
{
	size_t len = REPORT_LUNS_INITIAL_LEN, got = 0;
	bool reissued_short = false;
	uint8_t *buf = NULL;
	int r;

	for (int pass = 0; pass < 4; pass++) {
		uint8_t cdb[12] = { 0xa0 };
		size_t needed;
		uint8_t *p;

		p = realloc(buf, len);
		if (!p) {
			free(buf);
			return -ENOMEM;
		}
		buf = p;
		memset(buf, 0, len);
		cdb[6] = len >> 24;
		cdb[7] = len >> 16;
		cdb[8] = len >> 8;
		cdb[9] = len;
		r = run(fd, cdb, sizeof(cdb), buf, len, timeout, &got, err);
		if (r != 0) {
			free(buf);
			return r;
		}
		if (got < 8) {
			snprintf(err->text, sizeof(err->text),
				 "REPORT LUNS returned %zu bytes, less than its header", got);
			err->category = SG_LIB_CAT_MALFORMED;
			free(buf);
			return SG_LIB_CAT_MALFORMED;
		}
		needed = ((size_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3]) + 8;
		if (got >= needed)
			break;
		if (needed > len && len < SGIO_REPORT_LUNS_MAX) {
			len = needed < SGIO_REPORT_LUNS_MAX ? needed : SGIO_REPORT_LUNS_MAX;
			continue;
		}
		/* The buffer had room for the list the header announces, but
		 * the transfer stopped short: asked once more for exactly that
		 * length; a second short answer is returned as it is, and the
		 * caller sees that it is not whole (report_luns_decode()). */
		if (needed > len || reissued_short)
			break;
		reissued_short = true;
		len = needed;
	}
	*ret_buf = buf;
	*ret_len = got;
	return 0;
}
