// Package bolt keeps a single-use ledger (package
// github.com/bbdigest/bbdigest/ledger) in a bbolt database file, so that
// single use survives restarts and crashes and holds across processes.
//
//	l, err := bolt.Open("agent.db", &bolt.Options{Wait: 5 * time.Second})
//	...
//	defer l.Close()
//	r := envelope.NewResolver(l)
//
// What it guarantees:
//
//   - Single use: Resolve is an atomic test-and-set, within a process (one
//     write at a time) and across processes (one process at a time has the
//     file open).
//   - Crash safety: every commit is synced to disk (fsync) before Emit or
//     Resolve returns (concurrent calls share commits: see Ledger, Group
//     commit), so an envelope reported resolved stays resolved
//     after a crash or a SIGKILL. A process killed between a commit and its
//     report has consumed the decision unseen: single use is at most once,
//     and Lookup names the outcome that consumed it.
//   - The high-water file: beside the file PATH, PATH.hwm holds the
//     transaction id of the last commit. Open refuses, with
//     ledger.ErrCorrupt, a file that is damaged or rolled back: a damaged
//     newest meta page that bbolt would silently replace by the previous
//     one, an older copy of the file, a missing or damaged high-water file,
//     or any page or entry that fails its checks (Open reads every page
//     itself before bbolt does).
//   - Locking: Open waits up to Options.Wait (LockTimeout with nil
//     options) for another process to release the file, then fails with
//     ledger.ErrLocked.
//
// Create makes a new, empty ledger and refuses a path where one (or its
// high-water file) is: the way to set one up before the first Open with
// Options.MustExist.
//
// Every error is a *ledger.Error naming the file (its messages begin
// "ledger: ", as those of the ledger.Ledger it implements do), with the
// cause that errors.Is matches against the sentinels above.
//
// These checks find accidents, not attacks: neither file is signed, and
// whoever can write both can set any state or roll both back together.
// Keep both files, and their directory, writable only by the processes
// that keep the ledger (mode 0600, as created), off shared, synced and
// network folders, and never restore them from a backup. Ledgers written
// before the high-water file existed are refused. Delete both files
// together to start an empty ledger. See Ledger for the details.
//
// Each entry records when the envelope was emitted (ledger.Entry.EmittedAt),
// which package gate bounds a principal's authority by. Files written
// before entries recorded it open and work as they are, with no migration
// step: their entries read with a zero EmittedAt, so an envelope emitted
// then and still pending has no age that a gate with principals could
// bound, and is refused there; emit a new envelope (TestOpenEarlierLedger).
//
// bbolt does not build for wasm; package ledger and package envelope do.
package bolt
