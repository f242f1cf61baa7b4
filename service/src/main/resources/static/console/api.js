// The JSON API, called with the session's bearer token. The token is kept in this tab's
// sessionStorage only: it is never put in a URL, a cookie or the page, and it is gone when the tab
// closes or the operator signs out.

const TOKEN = 'workgraph.console.token';

export class ApiError extends Error {
	constructor(status, problem) {
		super((problem && (problem.detail || problem.title)) || ('HTTP ' + status));
		this.status = status;
		this.problem = problem || {};
	}
}

export const session = {
	token() {
		return sessionStorage.getItem(TOKEN);
	},
	signIn(token) {
		sessionStorage.setItem(TOKEN, token);
	},
	signOut() {
		sessionStorage.removeItem(TOKEN);
	},
};

let onUnauthenticated = () => {};

/** What to do when the API refuses the session's token (401): back to sign-in. */
export function whenUnauthenticated(handler) {
	onUnauthenticated = handler;
}

/** Tells the console that the API refused the session's token. */
export function unauthenticated(error) {
	onUnauthenticated(error);
}

async function request(method, path, body, token = session.token()) {
	const headers = { Accept: 'application/json' };
	if (token) {
		headers.Authorization = 'Bearer ' + token;
	}
	if (body !== undefined) {
		headers['Content-Type'] = 'application/json';
	}
	const response = await fetch(path, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
		credentials: 'omit',
		cache: 'no-store',
		redirect: 'error',
	});
	const text = await response.text();
	let json = null;
	if (text) {
		try {
			json = JSON.parse(text);
		}
		catch {
			json = null;
		}
	}
	if (!response.ok) {
		throw new ApiError(response.status, json);
	}
	return json;
}

async function call(method, path, body) {
	try {
		return await request(method, path, body);
	}
	catch (error) {
		if (error instanceof ApiError && error.status === 401) {
			onUnauthenticated(error);
		}
		throw error;
	}
}

function query(parameters) {
	const search = new URLSearchParams();
	for (const [name, value] of Object.entries(parameters)) {
		if (value !== null && value !== undefined && value !== '') {
			search.set(name, value);
		}
	}
	const text = search.toString();
	return text ? '?' + text : '';
}

const id = (value) => encodeURIComponent(value);

export const api = {
	/** Checks a token (or none, when the service runs without security) with a cheap read. */
	probe: (token) => request('GET', '/queues', undefined, token),
	/** Who the session's token is: {id, name, role, workerId}. */
	currentToken: () => call('GET', '/tokens/current'),
	queues: () => call('GET', '/queues'),
	changeQueue: (name, change) => call('PATCH', '/queues/' + id(name), change),
	items: (filter) => call('GET', '/items' + query(filter)),
	item: (itemId) => call('GET', '/items/' + id(itemId)),
	dependents: (itemId, cursor) => call('GET', '/items/' + id(itemId) + '/dependents' + query({ limit: 100, cursor })),
	leases: (itemId) => call('GET', '/items/' + id(itemId) + '/leases'),
	inbox: (cursor) => call('GET', '/attention-requests' + query({ status: 'open', limit: 100, cursor })),
	resolve: (requestId, resolution, resolvedBy) => call('POST', '/attention-requests/' + id(requestId) + '/resolve',
		{ resolution, resolvedBy }),
	cancel: (itemId, reason) => call('POST', '/items/' + id(itemId) + '/cancel', reason ? { reason } : {}),
};
