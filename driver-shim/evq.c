// SPDX-License-Identifier: MIT
/*
 * Event queues behind file descriptors, with the kernel's semantics for the
 * uverbs completion-event and async-event files: one event per read,
 * POLLIN while events are queued, EAGAIN when the fd is non-blocking and
 * nothing is queued.  See struct shim_evq in shim.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "shim.h"

int shim_evq_init(struct shim_evq *q, size_t item_size)
{
	memset(q, 0, sizeof(*q));
	q->item_size = item_size;
	/* Semaphore mode: each read takes exactly one event. Blocking by default,
	 * like the kernel's file; the application may set O_NONBLOCK on it. */
	q->fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (q->fd < 0)
		return -errno;
	pthread_mutex_init(&q->lock, NULL);
	return 0;
}

void shim_evq_destroy(struct shim_evq *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	free(q->items);
	q->items = NULL;
	pthread_mutex_destroy(&q->lock);
}

int shim_evq_push(struct shim_evq *q, const void *item)
{
	uint64_t one = 1;
	int ret = 0;

	pthread_mutex_lock(&q->lock);
	if (q->count == q->cap) {
		size_t ncap = q->cap ? 2 * q->cap : 16;
		uint8_t *n = malloc(ncap * q->item_size);

		if (!n) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < q->count; i++)
			memcpy(n + i * q->item_size,
			       q->items + ((q->head + i) % q->cap) * q->item_size, q->item_size);
		free(q->items);
		q->items = n;
		q->cap = ncap;
		q->head = 0;
	}
	memcpy(q->items + ((q->head + q->count) % q->cap) * q->item_size, item, q->item_size);
	q->count++;
	/* Count after the item is queued: a reader that got the count finds the item. */
	if (write(q->fd, &one, sizeof(one)) != sizeof(one))
		ret = -EIO;
out:
	pthread_mutex_unlock(&q->lock);
	return ret;
}

int shim_evq_pop(struct shim_evq *q, void *item)
{
	for (;;) {
		uint64_t v;
		ssize_t n = read(q->fd, &v, sizeof(v));

		if (n != sizeof(v)) {
			if (n >= 0)
				errno = EIO;
			return -1;	/* EAGAIN (non-blocking, empty), EINTR, ... */
		}
		pthread_mutex_lock(&q->lock);
		if (q->count) {
			memcpy(item, q->items + q->head * q->item_size, q->item_size);
			q->head = (q->head + 1) % q->cap;
			q->count--;
			pthread_mutex_unlock(&q->lock);
			return 0;
		}
		/* The item of this count was removed with its object: take another. */
		if (q->phantom)
			q->phantom--;
		pthread_mutex_unlock(&q->lock);
	}
}

void shim_evq_remove(struct shim_evq *q, int (*match)(const void *item, const void *arg),
		     const void *arg)
{
	size_t kept = 0, removed = 0;

	pthread_mutex_lock(&q->lock);
	for (size_t i = 0; i < q->count; i++) {
		uint8_t *src = q->items + ((q->head + i) % q->cap) * q->item_size;

		if (match(src, arg)) {
			removed++;
			continue;
		}
		if (kept != i)
			memcpy(q->items + ((q->head + kept) % q->cap) * q->item_size, src,
			       q->item_size);
		kept++;
	}
	q->count = kept;
	/* The counts of removed items stay in the eventfd (taking them back
	 * could block on a blocking fd); a reader that gets one finds no item
	 * and reads again.  The only visible effect is one spurious POLLIN. */
	q->phantom += removed;
	pthread_mutex_unlock(&q->lock);
}
