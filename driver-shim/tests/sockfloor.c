// SPDX-License-Identifier: MIT
/*
 * make bench-shim: the socket floor.  How many messages per second one
 * SOCK_SEQPACKET hop between two processes carries on this machine now --
 * the kind of socket between an HCA and `hcasim switch` -- for 64 B, 4 KiB
 * and 64 KiB messages, one per system call and 32 per sendmmsg/recvmmsg.
 * A frame crosses two such hops (HCA -> switch -> HCA); with one frame per
 * message this is the ceiling of the whole path before any device work.
 *
 *   sockfloor [SECONDS_PER_CASE]     (default 0.3)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCH 32
#define MSG_MAX (64 << 10)

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The receiving process: counts messages until the sender closes. */
static void receiver(int fd, int batch)
{
	static char buf[BATCH][MSG_MAX];
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH];

	for (int i = 0; i < BATCH; i++) {
		v[i] = (struct iovec){ .iov_base = buf[i], .iov_len = MSG_MAX };
		m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &v[i], .msg_iovlen = 1 } };
	}
	for (;;) {
		int k = batch > 1 ? recvmmsg(fd, m, BATCH, 0, NULL) : (int)recv(fd, buf[0], MSG_MAX, 0);

		if (k <= 0 || (batch > 1 && m[0].msg_len == 0))
			break;
	}
	_exit(0);
}

/* Messages per second of `size` bytes for `secs` seconds; 0 on an error. */
static double run(size_t size, int batch, double secs)
{
	static char buf[MSG_MAX];
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH];
	int sv[2], sz = 4 << 20;
	long sent = 0;
	double t0, t;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
		return 0;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		receiver(sv[1], batch);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return 0;
	}
	memset(buf, 0x5a, size);
	for (int i = 0; i < BATCH; i++) {
		v[i] = (struct iovec){ .iov_base = buf, .iov_len = size };
		m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &v[i], .msg_iovlen = 1 } };
	}
	t0 = now_s();
	do {
		for (int r = 0; r < 64; r++) {
			int k = batch > 1 ? sendmmsg(sv[0], m, BATCH, 0) : (send(sv[0], buf, size, 0) > 0);

			if (k <= 0) {
				sent = 0;
				goto out;
			}
			sent += k;
		}
		t = now_s();
	} while (t - t0 < secs);
out:
	close(sv[0]);	/* the receiver sees the end; its queue is drained by then */
	waitpid(pid, NULL, 0);
	t = now_s();
	return sent ? (double)sent / (t - t0) : 0;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 4096, 65536 };
	double secs = argc > 1 ? atof(argv[1]) : 0.3;

	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double one = run(sizes[i], 1, secs), many = run(sizes[i], BATCH, secs);

		if (!one || !many) {
			fprintf(stderr, "sockfloor: %zu B: %s\n", sizes[i], strerror(errno));
			return 1;
		}
		printf("bench shim: socket floor, one SEQPACKET hop between two processes, %5zu B messages: "
		       "%.3f M msgs/s one per system call, %.3f M msgs/s %d per call (%.2f Gb/s)\n",
		       sizes[i], one / 1e6, many / 1e6, BATCH, many * (double)sizes[i] * 8 / 1e9);
	}
	return 0;
}
