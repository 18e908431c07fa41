package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// demoCallAct is the canonical act of demo.ToolCall,
// written out by hand.
const demoCallAct = `{"act":"tool_call/v1","arguments":{"check_in":"2026-11-02","city":"Zürich",` +
	`"guests":[{"age":34,"name":"Ana"},{"age":7,"name":"Boël"}],"max_price_cents":25000,"nights":3,` +
	`"notes":"Quiet room, please 🙏 / no smoking"},"tool":"book_hotel"}`

// demoCallShapes returns the demo's tool call as the file writes it (an
// MCP request) and in the other shapes, with the same arguments text.
func demoCallShapes(t *testing.T) map[string]string {
	t.Helper()
	src := demo.ToolCall()
	var req struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(src, &req); err != nil {
		t.Fatal(err)
	}
	args := string(req.Params.Arguments)
	str, _ := json.Marshal(args)
	return map[string]string{
		"mcp":              string(src),
		"mcp-params":       `{"name":"book_hotel","arguments":` + args + `,"_meta":{"progressToken":1}}`,
		"mcp-gateway":      `{"Params":{"name":"book_hotel","arguments":` + args + `},"Session":{},"Extra":null}`,
		"anthropic":        `{"type":"tool_use","id":"toolu_1","name":"book_hotel","input":` + args + `}`,
		"openai":           `{"id":"call_1","type":"function","function":{"name":"book_hotel","arguments":` + string(str) + `}}`,
		"openai-responses": `{"type":"function_call","call_id":"c","name":"book_hotel","arguments":` + string(str) + `}`,
	}
}

// TestAct checks bbdigest act: the digest (computed here with
// crypto/sha256 over the act written by hand) of the demo's call in every
// shape, with --shape auto and its own; --server; --canonical; and the
// refusals and usage errors.
func TestAct(t *testing.T) {
	want := sha(demoCallAct) + "\n"
	var cases []runCase
	for name, src := range demoCallShapes(t) {
		shape, _, _ := strings.Cut(name, "-")
		cases = append(cases,
			runCase{name: name, args: []string{"act"}, stdin: src, stdout: want},
			runCase{name: name + " --shape", args: []string{"act", "--shape", shape, "-"}, stdin: src, stdout: want},
			runCase{name: name + " --canonical", args: []string{"act", "--canonical"}, stdin: src, stdout: demoCallAct},
		)
	}
	const call = `{"name":"t","arguments":{"b":[1.0],"a":"x"},"server":"not read"}`
	cases = append(cases, []runCase{
		{name: "server", args: []string{"act", "--server", "srv \"1\""}, stdin: call,
			stdout: sha(`{"act":"tool_call/v1","arguments":{"a":"x","b":[1]},"server":"srv \"1\"","tool":"t"}`) + "\n"},
		{name: "server canonical", args: []string{"act", "--server=s", "--canonical"}, stdin: call,
			stdout: `{"act":"tool_call/v1","arguments":{"a":"x","b":[1]},"server":"s","tool":"t"}`},
		{name: "empty server", args: []string{"act", "--server="}, stdin: call,
			stdout: sha(`{"act":"tool_call/v1","arguments":{"a":"x","b":[1]},"tool":"t"}`) + "\n"},

		// Refusals: exit 1, one diagnostic line, nothing on stdout.
		{name: "duplicate", args: []string{"act"}, stdin: `{"name":"t","arguments":{"a":1,"a":2}}`, code: 1,
			errRE: `^bbdigest: error: -: "/arguments/a": duplicate-name: duplicate object member name "a" at offset 31\n$`},
		{name: "fraction", args: []string{"act"}, stdin: `{"id":1,"name":"t","arguments":{"a":1.5}}`, code: 1,
			errRE: `^bbdigest: error: -: "/arguments/a": non-integer: number "1\.5" is not an integer at offset 36\n$`},
		{name: "wrapper surrogate", args: []string{"act"}, stdin: `{"name":"t","_meta":{"x":"\udc00"}}`, code: 1,
			errRE: `^bbdigest: error: -: "/_meta/x": unpaired-surrogate: .* at offset 26\n$`},
		{name: "openai string", args: []string{"act"}, stdin: `{"name":"t","arguments":"{\"a\":1,\"a\":2}"}`, code: 1,
			errRE: `^bbdigest: error: -: "/arguments": duplicate-name: duplicate object member name "a" within "/a" at offset 7 of the decoded string\n$`},
		{name: "openai fraction", args: []string{"act"}, stdin: `{"type":"function","function":{"name":"t","arguments":"{\"x\": 19.99}"}}`, code: 1,
			errRE: `^bbdigest: error: -: "/function/arguments": non-integer: number "19\.99" is not an integer within "/x" at offset 6 of the decoded string\n$`},
		{name: "not an object", args: []string{"act"}, stdin: `{"name":"t","arguments":"[1]"}`, code: 1,
			errRE: `^bbdigest: error: -: "/arguments": shape: the JSON text is an array, not an object at offset 0 of the decoded string\n$`},
		{name: "shape mismatch", args: []string{"act", "--shape", "anthropic"}, stdin: call, code: 1,
			errRE: `^bbdigest: error: -: "": shape: not an Anthropic tool_use block: the input reads as MCP tools/call params at offset 0\n$`},
		{name: "no name", args: []string{"act"}, stdin: "\n {\"arguments\":{}}", code: 1,
			errRE: `^bbdigest: error: -: "": shape: no name member \(the tool name\) in MCP tools/call params at offset 2\n$`},
		{name: "not JSON", args: []string{"act"}, stdin: `tool_use`, code: 1,
			errRE: `^bbdigest: error: -: "": syntax: .* at offset 1\n$`},
		{name: "escaped message", args: []string{"act"}, stdin: `{"type":"\u001b[31m","name":"t","input":{}}`, code: 1,
			errRE: `^bbdigest: error: -: "/type": shape: type is "\\u001b\[31m", not "tool_use" \(Anthropic\) or "function_call" \(OpenAI Responses\) at offset 8\n$`},

		// Usage and I/O errors: exit 2.
		{name: "unknown shape", args: []string{"act", "--shape", "gemini"}, code: 2,
			errRE: `^bbdigest: error: act: unknown shape "gemini": want auto, anthropic, openai or mcp\nbbdigest: hint: run 'bbdigest help act' for usage\n$`},
		{name: "server not UTF-8", args: []string{"act", "--server", "a\xffb"}, code: 2,
			errRE: `^bbdigest: error: act: --server "a\\xffb" is not valid UTF-8\n`},
		{name: "two files", args: []string{"act", "a.json", "b.json"}, code: 2,
			errRE: `^bbdigest: error: act: too many inputs \(2\)\n`},
		{name: "unknown flag", args: []string{"act", "--names"}, code: 2,
			errRE: `^bbdigest: error: act: unknown flag --names\n`},
		{name: "missing file", args: []string{"act", "nosuch.json"}, code: 2,
			errRE: `^bbdigest: error: nosuch\.json: open: no such file or directory\n$`},
		{name: "help", args: []string{"act", "--help"}, stdout: actHelp},
		{name: "help act", args: []string{"help", "act"}, stdout: actHelp},
	}...)
	runCases(t, cases)
}

// TestActFile reads calls from files, and takes the --canonical output of
// one shape as the action of an envelope option: resolution verify then
// answers authority for the --canonical output of the call in every other
// shape, and record for a call with one argument changed.
func TestActFile(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bbdExit := func(want int, args ...string) string {
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != want || stderr.Len() > 0 {
			t.Fatalf("%v: exit %d, want %d: %s", args, code, want, stderr.String())
		}
		return stdout.String()
	}
	bbd := func(args ...string) string { return bbdExit(0, args...) }
	shapes := demoCallShapes(t)
	action := bbd("act", "--canonical", "--server", "hotels", file("mcp.json", shapes["mcp"]))
	b := &envelope.Builder{
		Synopsis: "Book the hotel.", Findings: []string{}, Recommendations: []string{},
		Offer: "Ask.", Stem: "Book it?", Hatches: envelope.Hatches{FreeText: true},
	}
	b.AddOption("Book", "As asked.", []byte(action))
	b.AddOption("Do not book", "Wait.", []byte(`{"wait":true}`))
	env, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	envFile := file("env.json", string(env.AppendCanonical(nil)))
	resFile := file("res.json", `{"envelope_digest":"`+env.Digest().String()+`","resolution":"option","option_idx":0}`)
	for name, src := range shapes {
		path := file(name+".json", src)
		if got, want := bbd("act", "--server", "hotels", path), sha(action)+"\n"; got != want {
			t.Errorf("%s: digest %q, want %q", name, got, want)
		}
		canonical := file(name+".act", bbd("act", "--canonical", "--server", "hotels", path))
		out := bbd("resolution", "verify", "--envelope", envFile, "--resolution", resFile, "--action", canonical)
		if !strings.HasPrefix(out, `{"outcome":"authority"`) {
			t.Errorf("%s: %s", name, out)
		}
		changed := file(name+"-changed.json", strings.Replace(src, "Ana", "Anna", 1))
		canonical = file(name+"-changed.act", bbd("act", "--canonical", "--server", "hotels", changed))
		out = bbdExit(exitRejected, "resolution", "verify", "--envelope", envFile, "--resolution", resFile, "--action", canonical)
		if !strings.HasPrefix(out, `{"outcome":"record"`) {
			t.Errorf("%s with an argument changed: %s", name, out)
		}
	}
}

// TestActSizeBound lowers the size bound: a longer call is refused as
// too-large, exit 1.
func TestActSizeBound(t *testing.T) {
	c := &cli{stdin: strings.NewReader(`{"name":"t"}`), stdout: io.Discard, maxSize: 5}
	var stderr bytes.Buffer
	c.stderr = &stderr
	if code := c.main([]string{"act"}); code != exitRejected {
		t.Errorf("exit code %d, want %d", code, exitRejected)
	}
	if want := `^bbdigest: error: -: "": too-large: input longer than the 5-byte bound at offset 5\n$`; !regexp.MustCompile(want).Match(stderr.Bytes()) {
		t.Errorf("stderr %q does not match %q", stderr.String(), want)
	}
}

// TestActWriteError: a failing stdout is exit 2.
func TestActWriteError(t *testing.T) {
	var stderr bytes.Buffer
	if code := run([]string{"act"}, strings.NewReader(`{"name":"t"}`), errWriter{}, &stderr); code != exitUsage {
		t.Errorf("exit code %d, want %d", code, exitUsage)
	}
	if stderr.String() != "bbdigest: error: disk full\n" {
		t.Errorf("stderr %q", stderr.String())
	}
}

// TestActMessage checks bbdigest act on messages: the demo's call and a
// second one in every vendor's message, one "DIGEST  TOOL" line per call
// in order (digests by crypto/sha256 over the acts written by hand), the
// acts with --canonical, the same digest as the demo call alone, and
// refusals that point into the call.
func TestActMessage(t *testing.T) {
	shapes := demoCallShapes(t)
	const second = `{"act":"tool_call/v1","arguments":{"n":1},"tool":"ping"}`
	lines := sha(demoCallAct) + "  book_hotel\n" + sha(second) + "  ping\n"
	canonical := demoCallAct + "\n" + second + "\n"
	messages := map[string]string{
		"chat": `{"role":"assistant","content":null,"tool_calls":[` + shapes["openai"] + `,` +
			`{"id":"c2","type":"function","function":{"name":"ping","arguments":"{\"n\":1.0}"}}]}`,
		"chat-response": `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[` +
			shapes["openai"] + `,{"function":{"name":"ping","arguments":"{\"n\":1}"}}]},"finish_reason":"tool_calls"}]}`,
		"anthropic": `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Booking."},` +
			shapes["anthropic"] + `,{"type":"tool_use","id":"toolu_2","name":"ping","input":{"n":1}}],"usage":{"output_tokens":9}}`,
		"responses": `{"object":"response","temperature":0.7,"output":[{"type":"reasoning","summary":[]},` +
			shapes["openai-responses"] + `,{"type":"function_call","call_id":"c2","name":"ping","arguments":"{\"n\":1}"}]}`,
		"list": `[` + shapes["anthropic"] + `,{"type":"tool_use","name":"ping","input":{"n":1e0}}]`,
	}
	var cases []runCase
	for name, src := range messages {
		cases = append(cases,
			runCase{name: name, args: []string{"act"}, stdin: src, stdout: lines},
			runCase{name: name + " --canonical", args: []string{"act", "--canonical"}, stdin: src, stdout: canonical},
		)
	}
	cases = append(cases, []runCase{
		{name: "server", args: []string{"act", "--server", "s"}, stdin: messages["anthropic"],
			stdout: sha(strings.Replace(demoCallAct, `,"tool":`, `,"server":"s","tool":`, 1)) + "  book_hotel\n" +
				sha(`{"act":"tool_call/v1","arguments":{"n":1},"server":"s","tool":"ping"}`) + "  ping\n"},
		{name: "escaped tool", args: []string{"act"}, stdin: `[{"type":"tool_use","name":"a\u001b[31m\\b","input":{}}]`,
			stdout: `\` + sha(`{"act":"tool_call/v1","arguments":{},"tool":"a\u001b[31m\\b"}`) + `  a\u001b[31m\\b` + "\n"},
		{name: "third call", args: []string{"act"}, code: 1,
			stdin: `{"tool_calls":[` + shapes["openai"] + `,` + shapes["openai"] + `,{"function":{"name":"t","arguments":"{\"a\":[1,1.5]}"}}]}`,
			errRE: `^bbdigest: error: -: "/tool_calls/2/function/arguments": non-integer: number "1\.5" is not an integer within "/a/1" at offset 8 of the decoded string\n$`},
		{name: "no calls", args: []string{"act"}, stdin: `{"role":"assistant","content":"Hi","tool_calls":[]}`, code: 1,
			errRE: `^bbdigest: error: -: "/tool_calls": shape: an OpenAI Chat Completions assistant message with no tool calls at offset 48\n$`},
		{name: "shape mismatch", args: []string{"act", "--shape", "mcp"}, stdin: messages["chat"], code: 1,
			errRE: `^bbdigest: error: -: "": shape: not an MCP message \(MCP has none: a tools/call request carries one call\): the input reads as an OpenAI Chat Completions assistant message at offset 0\n$`},
		{name: "not a call", args: []string{"act"}, stdin: `{"id":"x","model":"m"}`, code: 1,
			errRE: `^bbdigest: error: -: "": shape: neither a tool call nor an assistant message: an object with members "id", "model" at offset 0\n$`},
	}...)
	runCases(t, cases)
	// A failing stdout stops at the first line: exit 2.
	var stderr bytes.Buffer
	if code := run([]string{"act"}, strings.NewReader(messages["chat"]), errWriter{}, &stderr); code != exitUsage || stderr.String() != "bbdigest: error: disk full\n" {
		t.Errorf("write error: exit %d, %q", code, stderr.String())
	}
}
