// Package notify tells the principals of a gate that an approval waits for
// them: for each new pending approval request (ledger.Request, the
// binding-moment envelope package gate asks about one act), it POSTs a
// signed JSON document to each configured webhook, so that an operator can
// route it to chat, mail or a pager with the tools they already run.
//
// It is a package of its own, under gate, because it is the gate's voice
// but none of its decision: package gate decides a call with no network
// and links no HTTP client, and a host that notifies no one keeps it that
// way. A notification never blocks, delays or changes a decision: Send
// queues and returns at once, the deliveries run on the Notifier's own
// goroutines, and what becomes of them is counted (Stats) and reported
// (Config.Report), never returned to the gate.
//
//	n, err := notify.New(notify.Config{URLs: []string{"https://hooks.example/bbdigest"}, Key: gateKey})
//	...
//	defer n.Close(ctx) // delivers what is queued, until ctx is done
//	g, err := gate.New(gate.Config{..., Approvals: notify.Wrap(store, n)})
//
// Wrap is the hook for a Go host: a gate.Approvals whose Ask sends each
// request its store created (after the store committed it), and nothing
// else. A process that cannot wait for webhooks (bbdigest gate, one short
// process per call) leaves notifying to a long-running watcher over the
// same store, Watch: it polls the store's pending requests and Sends each
// new one (bbdigest approve notify watches the ledger with it).
//
//	err := notify.Watch(ctx, n, func() ([]ledger.Request, error) { return store.Requests() },
//		notify.WatchOptions{Every: 2 * time.Second})
//	n.Close(drainCtx) // delivers what is queued
//
// # The delivery
//
// Each delivery is one HTTP POST of the request's Payload, as JSON
// (Content-Type application/json), to one webhook URL, with these headers:
//
//	Bbdigest-Envelope-Digest: sha256:<64 hex>   the request's envelope digest
//	Bbdigest-Timestamp:       <unix time in ms> when this attempt was signed
//	Bbdigest-Key-Id:          sha256:<64 hex>   the signing key's id (receipt.KeyID)
//	Bbdigest-Signature:       <base64url>       Ed25519 signature, no padding
//
// The signature is made with the gate's key (the key of its receipts,
// whose public half, KEYFILE.pub of bbdigest keygen, verifies them) over
// the bytes
//
//	"bbdigest-notify/v1" LF <Bbdigest-Timestamp> LF <Bbdigest-Key-Id> LF <body>
//
// where LF is one newline byte and <body> is the exact body of the POST.
// Verify checks all of it for a receiver in Go: the key id, the timestamp
// within MaxSkew of its clock, the signature, the payload's version, that
// its envelope_digest is the header's, and that its envelope's digest is
// that digest. A receiver elsewhere does the same with any Ed25519 library.
//
// The payload (see Payload for each member):
//
//	{"@version":"bbdigest-notify/v1","event":"approval_pending",
//	 "envelope_digest":"sha256:...","tool":"pay","server":"",
//	 "class":"FINANCIAL","act_digest":"sha256:...",
//	 "emitted":"2026-12-04T15:00:00.123456789Z",
//	 "text":"<the envelope as envelope.RenderText renders it (§9)>",
//	 "approve_url":"http://127.0.0.1:8080/",
//	 "envelope":{<the canonical binding_moment value>}}
//
// It holds no secret: approve_url (present when Config.ApproveURL is set)
// is sent without userinfo and without its "token" query parameter, the
// secret of the approval page ("bbdigest approve serve" prints the URL
// with it), so a principal opens the page with the token they hold. The
// text and the envelope are the agent's words, which a receiver escapes
// as any untrusted text.
//
// # Retries and idempotency
//
// A delivery is retried on a network error (an attempt's timeout, Config.
// AttemptTimeout, included), on 5xx and on 429, with exponential backoff
// and jitter (Config.MinBackoff doubling to Config.MaxBackoff, each wait
// drawn from its upper half, and at least what a Retry-After asks), up to
// Config.Attempts attempts and Config.MaxElapsed in all; another 4xx, a
// redirect (never followed: the signed body goes only where it was
// configured to) or a 2xx ends it. A delivery may therefore arrive more
// than once, and a watcher restarted re-sends the requests still pending:
// a receiver drops duplicates by the Bbdigest-Envelope-Digest header,
// which names the request for good (a new question is a new envelope).
//
// # Queue and shutdown
//
// Each webhook has its own bounded queue (Config.QueueSize) and one
// worker, so a slow or dead webhook delays no other. Send never waits: a
// request for a webhook whose queue is full is dropped for it, counted
// (Stats.Dropped), reported (EventDropped) and returned as ErrQueueFull.
// Close stops taking requests and delivers what is queued until its
// context is done, then abandons the rest (counted as failed).
//
// # Tests
//
// notify_test.go holds each promise against httptest receivers that
// verify every delivery: TestDelivered (payload, headers, signature,
// no token), TestRetry500, TestRetry429Backoff, TestNoRetry400,
// TestHangingReceiver (the attempt timeout; Send never blocked),
// TestQueueFull, TestCloseDrains, TestCloseDeadline, TestVerifyRefuses,
// TestWrap (only created requests, after the store), and watch_test.go
// Watch's: TestWatch (each pending request sent once, forgotten once no
// longer pending, a skipped failure), TestWatchQueueFull (a request
// dropped goes again at the next poll), TestWatchEnds.
package notify
