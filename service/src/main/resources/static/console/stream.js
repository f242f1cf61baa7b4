// The change stream (GET /changes, server-sent events), read with fetch: EventSource cannot send
// the Authorization header, and the token must not go in a URL. One connection per tab, shared by
// the pages. After a break it reconnects with Last-Event-ID, so no change is missed, and the
// header says whether the console is live or reconnecting.
import { session, unauthenticated, ApiError } from './api.js';

const RETRY_MILLIS = 1000;

const listeners = new Set();
let controller = null;
let lastEventId = null;

function show(state) {
	const indicator = document.getElementById('live');
	indicator.hidden = state === 'off';
	indicator.dataset.state = state;
	indicator.textContent = state === 'live' ? 'live' : 'reconnecting…';
	indicator.title = state === 'live' ? 'Changes appear as they happen'
		: 'The change stream broke; reconnecting (nothing is missed)';
}

/**
 * Calls listener(change) for each change, and listener(null) whenever the stream (re)connects:
 * what changed while it was not connected is to be read again. Returns the unsubscribe function.
 */
export function onChanges(listener) {
	listeners.add(listener);
	return () => listeners.delete(listener);
}

export function startStream() {
	if (controller === null) {
		controller = new AbortController();
		follow(controller.signal);
	}
}

export function stopStream() {
	if (controller !== null) {
		controller.abort();
		controller = null;
	}
	lastEventId = null;
	show('off');
}

function tell(change) {
	for (const listener of listeners) {
		try {
			listener(change);
		}
		catch (failure) {
			console.error(failure);
		}
	}
}

async function follow(signal) {
	show('reconnecting');
	while (!signal.aborted) {
		try {
			const headers = { Accept: 'text/event-stream' };
			const token = session.token();
			if (token) {
				headers.Authorization = 'Bearer ' + token;
			}
			if (lastEventId !== null) {
				headers['Last-Event-ID'] = lastEventId;
			}
			const response = await fetch('/changes', { headers, signal, credentials: 'omit', cache: 'no-store',
				redirect: 'error' });
			if (response.status === 401) {
				unauthenticated(new ApiError(401, null));
				return;
			}
			if (!response.ok || !response.body) {
				throw new Error('HTTP ' + response.status);
			}
			show('live');
			tell(null);
			await read(response.body, signal);
		}
		catch (failure) {
			if (signal.aborted) {
				return;
			}
		}
		show('reconnecting');
		await new Promise((resolve) => setTimeout(resolve, RETRY_MILLIS));
	}
}

/** Reads events until the stream ends, as the server-sent events specification parses them. */
async function read(body, signal) {
	const reader = body.pipeThrough(new TextDecoderStream()).getReader();
	let buffer = '';
	let data = [];
	let id = null;
	while (!signal.aborted) {
		const { value, done } = await reader.read();
		if (done) {
			return;
		}
		buffer += value;
		let end;
		while ((end = buffer.indexOf('\n')) >= 0) {
			const line = buffer.slice(0, end).replace(/\r$/, '');
			buffer = buffer.slice(end + 1);
			if (line === '') {
				if (id !== null) {
					lastEventId = id;
				}
				if (data.length) {
					try {
						tell(JSON.parse(data.join('\n')));
					}
					catch {
						// Not a change: nothing to tell.
					}
				}
				data = [];
				id = null;
			}
			else if (!line.startsWith(':')) {
				const colon = line.indexOf(':');
				const field = colon < 0 ? line : line.slice(0, colon);
				const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
				if (field === 'data') {
					data.push(text);
				}
				else if (field === 'id') {
					id = text;
				}
			}
		}
	}
}
