/* Handing a message to its observer (observer.h): any stage that tells
 * (the session, the event plan) calls this, and the callback of its kind
 * runs. */
#include "util/observer.h"

void mmp_observer_tell(const struct mmp_observer *obs, const struct mmp_told *t)
{
	void (*cb)(void *, const struct mmp_told *);
	if (!obs)
		return;
	cb = t->what <= MMP_TELL_NO_DATA	   ? obs->note
	     : t->what <= MMP_TELL_ESCAPED	     ? obs->warn
						     : obs->error;
	if (cb)
		cb(obs->ctx, t);
}
