// The console: hash routes (#/inbox, #/items, #/items/<id>, #/queues) rendered with DOM APIs only.
import { api, ApiError, session, whenUnauthenticated } from './api.js';
import { h, isId, replace } from './dom.js';
import { inboxPage, startInbox, stopInbox } from './inbox.js';
import { itemsPage } from './items.js';
import { itemPage } from './item.js';
import { queuesPage } from './queues.js';
import { startStream, stopStream } from './stream.js';

const main = () => document.getElementById('main');

let signedIn = false;
let leavePage = () => {};

function showNavigation(visible, label) {
	document.getElementById('nav').hidden = !visible;
	document.getElementById('sign-out').hidden = !visible || !session.token();
	replace(document.getElementById('session'), label || '');
}

function signInPage(message) {
	signedIn = false;
	leavePage();
	leavePage = () => {};
	stopInbox();
	stopStream();
	showNavigation(false);
	const token = h('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'off', required: true,
		spellcheck: 'false', 'aria-describedby': 'sign-in-help' });
	const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, message || '');
	error.hidden = !message;
	const button = h('button', { type: 'submit' }, 'Sign in');
	const form = h('form', { id: 'sign-in', class: 'card narrow', method: 'post', autocomplete: 'off' },
		h('h1', {}, 'Sign in'),
		h('label', { for: 'token' }, 'Operator or admin token'),
		token,
		h('p', { id: 'sign-in-help', class: 'muted' },
			'The token stays in this browser tab only (session storage) and is sent as an Authorization header.'),
		error,
		button);
	form.addEventListener('submit', async (event) => {
		event.preventDefault();
		const value = token.value.trim();
		if (!value) {
			return;
		}
		button.disabled = true;
		try {
			await api.probe(value);
			session.signIn(value);
			token.value = '';
			enter(await signedInAs());
		}
		catch (failure) {
			error.hidden = false;
			replace(error, refusal(failure));
			token.select();
		}
		finally {
			button.disabled = false;
		}
	});
	replace(main(), form);
	token.focus();
}

/** Says as whom the session is signed in (the token's name and role), so a shared screen shows it. */
async function signedInAs() {
	try {
		const me = await api.currentToken();
		return me && me.name ? 'signed in as ' + me.name + ' (' + me.role + ')' : 'signed in';
	}
	catch {
		return 'signed in';
	}
}

function refusal(failure) {
	if (failure instanceof ApiError && failure.status === 401) {
		return 'Wrong token: the service does not accept it (unknown, mistyped or revoked).';
	}
	if (failure instanceof ApiError && failure.status === 403) {
		return 'This token may not use the console: sign in with an operator or admin token.';
	}
	return 'Could not reach the service: ' + failure.message;
}

function enter(label) {
	signedIn = true;
	showNavigation(true, label);
	startStream();
	startInbox();
	if (!location.hash || location.hash === '#' || location.hash === '#/') {
		location.hash = '#/inbox';
	}
	else {
		route();
	}
}

function parseRoute() {
	const hash = location.hash.replace(/^#/, '') || '/inbox';
	const [path, search] = hash.split('?', 2);
	return { parts: path.split('/').filter(Boolean), parameters: new URLSearchParams(search || '') };
}

function route() {
	if (!signedIn) {
		return;
	}
	leavePage();
	leavePage = () => {};
	const { parts, parameters } = parseRoute();
	const page = parts[0] || 'inbox';
	for (const link of document.querySelectorAll('[data-nav]')) {
		link.classList.toggle('active', link.dataset.nav === page);
	}
	const container = main();
	replace(container);
	if (page === 'inbox') {
		leavePage = inboxPage(container);
	}
	else if (page === 'items' && parts.length === 1) {
		leavePage = itemsPage(container, parameters);
	}
	else if (page === 'items' && parts.length === 2 && isId(parts[1])) {
		leavePage = itemPage(container, parts[1].toLowerCase());
	}
	else if (page === 'queues') {
		leavePage = queuesPage(container);
	}
	else {
		replace(container, h('p', { class: 'error' }, 'No such page.'));
	}
	if (typeof leavePage !== 'function') {
		leavePage = () => {};
	}
}

async function start() {
	whenUnauthenticated(() => {
		session.signOut();
		signInPage('Your session ended: the token was refused. Sign in again.');
	});
	document.getElementById('sign-out').addEventListener('click', () => {
		session.signOut();
		signInPage('Signed out.');
	});
	window.addEventListener('hashchange', route);
	// A page left (or put in the back/forward cache) closes its stream: browsers allow only a few
	// connections per host, and a stream held by a page nobody sees would take one for ever.
	window.addEventListener('pagehide', () => stopStream());
	window.addEventListener('pageshow', (event) => {
		if (event.persisted && signedIn) {
			startStream();
		}
	});
	const token = session.token();
	try {
		await api.probe(token);
		enter(token ? await signedInAs() : 'security is off: no sign-in needed');
	}
	catch (failure) {
		if (token) {
			session.signOut();
		}
		signInPage(failure instanceof ApiError && failure.status === 401 && !token ? '' : refusal(failure));
	}
}

start();
