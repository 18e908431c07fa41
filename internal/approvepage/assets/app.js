// The approval page of bbdigest (internal/approvepage).
//
// Every string from the server or the agent reaches the document through
// textContent, never innerHTML: the envelope's text is the attacker's. The
// envelope's bytes are hashed and rendered here by bbdigest's own code
// (approve.wasm), and a decision is sent only when the digest computed here
// is the digest the server lists.
'use strict';

(function () {
  const csrf = document.querySelector('meta[name="bbdigest-csrf"]').content;
  const pollMS = Number(document.querySelector('meta[name="bbdigest-poll-ms"]').content) || 1000;
  const statusLine = document.getElementById('status');
  const list = document.getElementById('pending');
  const empty = document.getElementById('empty');
  const log = document.getElementById('decisions');
  const cards = new Map(); // key (listed digest and bytes) -> card
  let api = null; // bbdigestApprovePage, once approve.wasm runs
  let stopped = false;

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function setStatus(text, error) {
    statusLine.textContent = text;
    statusLine.className = error ? 'error' : '';
  }

  function bytesOf(base64) {
    const bin = atob(base64);
    const b = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
    return b;
  }

  // verified reports whether the bytes of card hash, here and now, to the
  // digest the server lists for them.
  function verified(card) {
    const res = api.check(card.bytes);
    return res.ok === true && res.digest === card.item.envelope_digest;
  }

  function makeCard(item) {
    const card = { item: item, bytes: bytesOf(item.envelope || ''), buttons: [] };
    const res = api.check(card.bytes);
    card.ok = res.ok === true && res.digest === item.envelope_digest;

    const sec = el('section', 'envelope');
    sec.dataset.digest = item.envelope_digest;
    card.el = sec;
    let title = 'Tool ' + api.quote(item.tool);
    if (item.server) title += ' on server ' + api.quote(item.server);
    sec.append(el('h2', '', title));

    const dl = el('dl');
    const row = function (name, value, cls) {
      dl.append(el('dt', '', name));
      dl.append(el('dd', cls || '', value));
    };
    row('Act digest', item.act_digest, 'act-digest');
    row('Emitted', item.emitted || '(not recorded)');
    row('Envelope digest listed by the server', item.envelope_digest, 'listed-digest');
    row('Envelope digest computed in this browser', res.ok ? res.digest : '(none: ' + res.error + ')', 'computed-digest');
    sec.append(dl);

    const check = el('p', 'check');
    if (card.ok) {
      check.classList.add('ok');
      check.textContent = 'The digests match: below is the envelope the server lists, as this browser read it.';
    } else if (!res.ok) {
      check.classList.add('bad');
      check.textContent = 'Not a well-formed envelope: ' + res.error + '. There is nothing to decide here; the buttons are disabled.';
    } else {
      check.classList.add('bad');
      check.textContent = 'Digest mismatch: the bytes the server sent do not have the digest it lists, so a decision here could bind an envelope you have not seen. Do not decide; the buttons are disabled.';
    }
    sec.append(check);
    if (!card.ok) sec.classList.add('mismatch');

    if (res.ok) {
      sec.append(el('pre', 'rendering', res.text));
      if (res.freeText || res.dialogue) {
        sec.append(el('p', 'hatches', 'This page records a selected option or a decline. To answer in your own words or to reject the question, decline here and tell the agent.'));
      }
    }

    const actions = el('div', 'actions');
    const n = res.ok ? res.options : 0;
    for (let i = 0; i < n; i++) {
      let text = 'Approve ' + (i + 1) + '. ' + res.labels[i];
      let cls = 'approve';
      if (i === res.recommended) {
        text += ' (recommended)';
        cls += ' recommended';
      }
      const b = el('button', cls, text);
      b.type = 'button';
      b.dataset.option = String(i);
      b.addEventListener('click', function () { decide(card, { decision: 'approve', option: i }); });
      actions.append(b);
      card.buttons.push(b);
    }
    const d = el('button', 'decline', 'Decline');
    d.type = 'button';
    d.addEventListener('click', function () { decide(card, { decision: 'deny' }); });
    actions.append(d);
    card.buttons.push(d);
    sec.append(actions);
    card.result = el('p', 'result');
    sec.append(card.result);
    setButtons(card, card.ok);
    return card;
  }

  function setButtons(card, enabled) {
    for (const b of card.buttons) b.disabled = !enabled;
  }

  async function decide(card, choice) {
    // Checked again at the moment of sending, whatever the buttons say.
    if (!card.ok || !verified(card)) {
      card.result.className = 'result error';
      card.result.textContent = 'Not sent: the digest computed in this browser is not the one the server lists.';
      setButtons(card, false);
      return;
    }
    setButtons(card, false);
    const body = { envelope_digest: card.item.envelope_digest, decision: choice.decision };
    if (choice.decision === 'approve') body.option = choice.option;
    let resp, data;
    try {
      resp = await fetch('/api/decide', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
        body: JSON.stringify(body),
      });
      data = await resp.json();
    } catch (e) {
      card.result.className = 'result error';
      card.result.textContent = 'Not recorded: ' + String(e);
      setButtons(card, true);
      return;
    }
    if (!resp.ok) {
      card.result.className = 'result error';
      card.result.textContent = 'Not recorded (' + resp.status + '): ' + String(data && data.error);
      setButtons(card, resp.status >= 500);
      return;
    }
    const what = choice.decision === 'approve' ? 'Approved option ' + (choice.option + 1) : 'Declined';
    card.decided = true;
    card.result.className = 'result';
    card.result.textContent = what + '.';
    const li = el('li', choice.decision === 'approve' ? 'approved' : 'declined', what + ': ' + card.item.envelope_digest);
    log.append(li);
  }

  async function poll() {
    if (stopped) return;
    let resp, data;
    try {
      resp = await fetch('/api/pending', { credentials: 'same-origin', cache: 'no-store' });
      data = await resp.json();
    } catch (e) {
      setStatus('Cannot reach the server: ' + String(e) + '. Retrying.', true);
      setTimeout(poll, pollMS);
      return;
    }
    if (resp.status === 401 || resp.status === 403) {
      stopped = true;
      setStatus('The session is not valid (' + resp.status + '): open the URL the command printed again.', true);
      return;
    }
    if (!resp.ok) {
      setStatus('The server cannot list the pending envelopes (' + resp.status + '): ' + String(data && data.error) + '. Retrying.', true);
      setTimeout(poll, pollMS);
      return;
    }
    try {
      update(Array.isArray(data.items) ? data.items : []);
    } catch (e) {
      // The digest module failed (it has exited, say): nothing can be
      // checked any more, so nothing may be decided.
      stopped = true;
      for (const card of cards.values()) setButtons(card, false);
      setStatus('The digest module failed, so no envelope can be checked: ' + String(e) + '. Reload the page.', true);
      return;
    }
    setStatus('Updated ' + new Date().toLocaleTimeString() + '; ' + cards.size + ' pending.', false);
    setTimeout(poll, pollMS);
  }

  function update(items) {
    const seen = new Set();
    for (const item of items) {
      const key = String(item.envelope_digest) + '\n' + String(item.envelope);
      seen.add(key);
      if (cards.has(key)) continue;
      const card = makeCard(item);
      cards.set(key, card);
      list.append(card.el);
    }
    for (const [key, card] of cards) {
      if (!seen.has(key)) {
        card.el.remove();
        cards.delete(key);
      }
    }
    empty.hidden = cards.size !== 0;
  }

  async function start() {
    try {
      const go = new Go();
      const wasm = await WebAssembly.instantiateStreaming(fetch('/approve.wasm', { credentials: 'same-origin' }), go.importObject);
      go.run(wasm.instance); // runs main until it waits for calls
      api = globalThis.bbdigestApprovePage;
      if (!api) throw new Error('approve.wasm did not start');
    } catch (e) {
      setStatus('Cannot load the digest module, so no envelope can be checked: ' + String(e), true);
      return;
    }
    setStatus('Digest module loaded; listing the pending envelopes…', false);
    poll();
  }

  start();
})();
