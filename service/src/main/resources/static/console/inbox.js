// The attention inbox: open requests, newest first. Read again whenever the change stream says a
// question was asked, answered or its item closed (and when the stream reconnects), so a new
// question appears as soon as it is committed, without polling; cards are added and removed in
// place, so an answer being typed is never redrawn away.
import { api } from './api.js';
import { h, itemLink, jsonText, replace, time } from './dom.js';
import { answerForm } from './answer.js';
import { onChanges } from './stream.js';

/** The changes after which the open requests may differ. */
const AFFECTING = new Set(['attention.opened', 'attention.resolved', 'attention.escalated', 'item.cancelled',
	'item.completed']);

/** After a failed read, the next try. */
const RETRY_MILLIS = 2000;

let unsubscribe = null;
let reading = false;
let readAgain = false;
let retry = null;
let latest = null;
const listeners = new Set();

async function refresh() {
	if (reading) {
		readAgain = true;
		return;
	}
	reading = true;
	clearTimeout(retry);
	try {
		do {
			readAgain = false;
			const page = await api.inbox();
			if (unsubscribe === null) {
				return;
			}
			latest = page;
			const count = document.getElementById('inbox-count');
			const open = latest.attentionRequests.length;
			replace(count, open === 0 ? '' : (latest.nextCursor ? open + '+' : String(open)));
			listeners.forEach((listener) => listener(latest, null));
		}
		while (readAgain);
	}
	catch (failure) {
		listeners.forEach((listener) => listener(null, failure));
		if (unsubscribe !== null) {
			retry = setTimeout(refresh, RETRY_MILLIS);
		}
	}
	finally {
		reading = false;
	}
}

export function startInbox() {
	if (unsubscribe === null) {
		unsubscribe = onChanges((change) => {
			if (change === null || AFFECTING.has(change.type)) {
				refresh();
			}
		});
		refresh();
	}
}

export function stopInbox() {
	if (unsubscribe !== null) {
		unsubscribe();
		unsubscribe = null;
	}
	clearTimeout(retry);
	latest = null;
}

// A question whose deadline passed unanswered stands out, with the label it was escalated to.
function markEscalated(element, request) {
	if (!request.escalatedAt || element.classList.contains('escalated')) {
		return;
	}
	element.classList.add('escalated');
	element.querySelector('header').prepend(h('span', { class: 'escalation' },
		'Escalated' + (request.escalateTo ? ' to ' + request.escalateTo : ''), ' · ', time(request.escalatedAt)));
}

function card(request) {
	const answered = h('div', { class: 'card-answer' });
	const element = h('article', { class: 'card request', 'data-request-id': request.id },
		h('header', {},
			itemLink(request.itemId, request.itemTitle, { class: 'item-title' }),
			h('span', { class: 'meta' },
				request.blocking ? 'blocking' : 'non-blocking', ' · asked by ',
				request.workerId ?? 'the service (' + (request.kind ?? 'system') + ')', ' · ', time(request.openedAt),
				request.timeoutAt && !request.escalatedAt ? ' · deadline ' + time(request.timeoutAt) : '')),
		h('pre', { class: 'question' }, request.question),
		Object.keys(request.context || {}).length
			? h('details', {}, h('summary', {}, 'Context'), h('pre', { class: 'json' }, jsonText(request.context)))
			: null,
		answered);
	answered.append(answerForm(request, (confirmation) => {
		element.classList.add('done');
		replace(answered, confirmation);
	}));
	markEscalated(element, request);
	return element;
}

export function inboxPage(container) {
	const list = h('div', { id: 'inbox', class: 'cards' });
	const empty = h('p', { id: 'inbox-empty', class: 'muted' }, 'No open questions.');
	const more = h('p', { class: 'muted' }, 'Showing the newest 100 open questions.');
	const error = h('p', { class: 'error', role: 'alert' });
	empty.hidden = true;
	more.hidden = true;
	error.hidden = true;
	replace(container, h('h1', {}, 'Attention inbox'), error, empty, list, more);
	const shown = new Map();

	const render = (page, failure) => {
		error.hidden = !failure;
		if (failure) {
			replace(error, 'Could not refresh the inbox: ' + failure.message);
			return;
		}
		const open = new Set(page.attentionRequests.map((request) => request.id));
		for (const [id, element] of shown) {
			// Answered here (or being answered): keep the confirmation until the page is left.
			// Answered elsewhere: gone.
			if (!open.has(id) && !element.classList.contains('done') && !element.querySelector('form[data-sending]')) {
				element.remove();
				shown.delete(id);
			}
		}
		let previous = null;
		for (const request of page.attentionRequests) {
			let element = shown.get(request.id);
			if (!element) {
				element = card(request);
				shown.set(request.id, element);
				if (previous) {
					previous.after(element);
				}
				else {
					list.prepend(element);
				}
			}
			markEscalated(element, request);
			previous = element;
		}
		empty.hidden = shown.size > 0;
		more.hidden = !page.nextCursor;
	};
	listeners.add(render);
	if (latest) {
		render(latest, null);
	}
	return () => listeners.delete(render);
}
