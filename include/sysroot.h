/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysroot.h - the one path context for every /sys, /dev, /proc and /run
 * access, under a root that tests move (--sysroot).
 */
#ifndef SCSI_SCAN_SYSROOT_H
#define SCSI_SCAN_SYSROOT_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

struct sysfs_ctx;

/**
 * sysfs_new() - make a path context
 * @root: directory that stands for "/" (tests point it at a captured tree),
 *	or NULL for the real root
 *
 * Return: the context, or NULL if out of memory.
 */
struct sysfs_ctx *sysfs_new(const char *root);

/**
 * sysfs_free() - free a path context
 * @ctx: the context, or NULL
 */
void sysfs_free(struct sysfs_ctx *ctx);

/**
 * sysfs_path() - an absolute path under the context's root
 * @ctx: the context
 * @buf: output
 * @len: size of @buf
 * @fmt: printf format of the path, starting with '/'
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int sysfs_path(const struct sysfs_ctx *ctx, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * sysfs_read() - read a small attribute, without its trailing newline
 * @ctx: the context
 * @buf: output, NUL-terminated
 * @len: size of @buf
 * @fmt: printf format of the path
 *
 * A value is never cut to fit: one longer than @len - 1 bytes (its newline
 * aside) is -EOVERFLOW.
 *
 * Return: bytes read, or a negative errno.
 */
int sysfs_read(const struct sysfs_ctx *ctx, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * sysfs_read_bin() - read a binary attribute (such as inquiry)
 * @ctx: the context
 * @buf: output
 * @len: size of @buf
 * @fmt: printf format of the path
 *
 * A read shorter than asked and than a page (4096 bytes) ends the
 * attribute, as sysfs hands one over in reads of up to a page: one read
 * per attribute, not two.
 *
 * Return: bytes read, or a negative errno.
 */
int sysfs_read_bin(const struct sysfs_ctx *ctx, uint8_t *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * sysfs_dir_fd() - open a directory under the root as a descriptor
 * @ctx: the context
 * @fmt: printf format of its path; links and ".." resolve as the kernel
 *	resolves them ("/sys/bus/scsi/devices/H:C:T:L/.." is the LUN's
 *	target)
 *
 * Return: the descriptor (O_CLOEXEC), or a negative errno.
 */
int sysfs_dir_fd(const struct sysfs_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * sysfs_read_bin_at() - sysfs_read_bin() relative to a directory
 * @dir_fd: a directory of the tree, from sysfs_dir_fd()
 * @rel: the path relative to @dir_fd ("H:C:T:L/vpd_pg83")
 * @buf: output
 * @len: size of @buf
 *
 * The walk starts at @dir_fd: no link or name above it is looked up again.
 *
 * Return: bytes read, or a negative errno.
 */
int sysfs_read_bin_at(int dir_fd, const char *rel, uint8_t *buf, size_t len);

/**
 * sysfs_open_dir() - open a directory under the root
 * @ctx: the context
 * @rel: its absolute path without the root, e.g. "/sys/class/scsi_host"
 * @ret: set to the open directory, or NULL if it does not exist: a missing
 *	directory is empty, not an error (no host, no device yet)
 *
 * Return: 0 or a negative errno.
 */
int sysfs_open_dir(const struct sysfs_ctx *ctx, const char *rel, DIR **ret);

/**
 * sysfs_module_param() - a numeric module parameter
 * @ctx: the context
 * @module: e.g. "scsi_mod"
 * @param: e.g. "max_luns"
 * @ret: the value
 *
 * Return: 0 or a negative errno.
 */
int sysfs_module_param(const struct sysfs_ctx *ctx, const char *module, const char *param,
		       uint64_t *ret);

#endif
