/*
 * fops.pml - librevoke's lock/substitute/release protocol (src/lib/),
 * for spin.  Checked: no call runs in the old table after fops_substitute
 * has returned, and the old release runs exactly once, whatever the
 * interleaving of two callers, the substitute, and the last close (which
 * may come before, during or after the substitute).
 *
 * The model is sequentially consistent: the memory barriers that make
 * the real slot store visible before the f_op load (membarrier on the
 * writer's side, see src/lib/fops_lock.c) are assumed here.
 *
 * -DBROKEN_SCAN_FIRST models a writer that waits for readers before it
 * swaps the table: spin must find the violation (tests/lib/spin.sh).
 */
#define OLD 1
#define NEW 2
#define NREADERS 2

byte f_op = OLD;
bool f_release = true;		/* FMODE_RELEASE: open succeeded */
bool f_revoked = false;		/* FMODE_REVOKED */
bool slot[NREADERS + 1];	/* per-thread slots; the closer is the last */
bool substitute_returned = false;
byte old_releases = 0;
byte in_old = 0;
byte done = 0;

/* f_lock */
bool f_lock = false;
inline lock()   { atomic { !f_lock -> f_lock = true } }
inline unlock() { f_lock = false }

/* a call through the table (revoke_call_*), twice */
proctype caller(byte id)
{
	byte fop;
	byte n = 0;
	do
	:: n < 2 ->
		slot[id] = true;		/* fops_read_lock: publish ... */
		fop = f_op;			/* ... then load the table */
		if
		:: fop == OLD ->
			assert(!substitute_returned);
			in_old++;
			in_old--;
			assert(!substitute_returned);
		:: else -> skip
		fi;
		slot[id] = false;		/* fops_read_unlock */
		n++
	:: else -> break
	od;
	done++
}

/* the last revoke_file_put: frelease */
proctype closer()
{
	byte fop;
	bool need;
	slot[NREADERS] = true;
	fop = f_op;
	lock();
	need = f_release && !f_revoked;
	if
	:: need -> f_release = false
	:: else -> skip
	fi;
	unlock();
	if
	:: need && fop == OLD -> old_releases++
	:: need && fop == NEW -> skip	/* would be the wrong table's release */
	:: else -> skip
	fi;
	slot[NREADERS] = false;
	done++
}

inline wait_for_readers() {
	byte i = 0;
	do
	:: i <= NREADERS -> (!slot[i]); i++
	:: else -> break
	od
}

proctype substitute()
{
	bool owed;
#ifdef BROKEN_SCAN_FIRST
	wait_for_readers();
#endif
	lock();
	assert(!f_revoked);
	f_op = NEW;
	f_revoked = true;
	unlock();
#ifndef BROKEN_SCAN_FIRST
	wait_for_readers();
#endif
	lock();
	owed = f_release;
	f_release = false;
	unlock();
	if
	:: owed -> old_releases++
	:: else -> skip
	fi;
	substitute_returned = true;
	done++
}

init {
	atomic {
		run caller(0);
		run caller(1);
		run closer();
		run substitute()
	}
	(done == NREADERS + 2);
	assert(old_releases == 1);
	assert(in_old == 0)
}
