// One item: its fields (attempts and next run too), why it is blocked, its neighbourhood (drawn and
// listed), its latest checkpoint, its questions with their answers (and why the service asked), and
// the lease timeline from lease history.
import { api, ApiError } from './api.js';
import { h, itemLink, jsonText, replace, statusBadge, time } from './dom.js';
import { answerForm } from './answer.js';
import { neighbourhood } from './graph.js';
import { onChanges } from './stream.js';

function field(name, value) {
	if (value === null || value === undefined || value === '') {
		return null;
	}
	return [h('dt', {}, name), h('dd', {}, value)];
}

function linkedList(id, title, items, empty) {
	return h('section', { id, class: 'related' }, h('h2', {}, title),
		items.length === 0 ? h('p', { class: 'muted' }, empty)
			: h('ul', {}, items.map((item) => h('li', { 'data-item-id': item.id },
				itemLink(item.id, item.title), ' ', statusBadge(item.status)))));
}

/**
 * The children, each with the siblings it waits for: the order among the steps of a plan,
 * read from the children's own views (one page of up to 500).
 */
function childrenList(children, waitsFor) {
	return h('section', { id: 'children', class: 'related' }, h('h2', {}, 'Children'),
		children.length === 0 ? h('p', { class: 'muted' }, 'No children.')
			: h('ul', {}, children.map((child) => {
				const siblings = waitsFor.get(child.id) || [];
				return h('li', { 'data-item-id': child.id }, itemLink(child.id, child.title), ' ', statusBadge(child.status),
					siblings.length === 0 ? null : h('span', { class: 'waits-for muted', 'data-waits-for': siblings.map((sibling) => sibling.id).join(' ') },
						' · waits for ', siblings.flatMap((sibling, i) => [i ? ', ' : '', itemLink(sibling.id, sibling.title)])));
			})));
}

/** Child id → the siblings it depends on ({id, title}), from the children's views. */
function siblingDependencies(children, childViews) {
	const siblings = new Map(children.map((child) => [child.id, child]));
	const waitsFor = new Map();
	for (const view of childViews) {
		const within = (view.dependsOn || []).filter((dependency) => siblings.has(dependency.id));
		if (within.length) {
			waitsFor.set(view.id, within.map((dependency) => siblings.get(dependency.id)));
		}
	}
	return waitsFor;
}

function blockers(item) {
	const b = item.blockers || {};
	const reasons = [];
	if (b.unmetDependencies) reasons.push(b.unmetDependencies + ' unmet dependenc' + (b.unmetDependencies === 1 ? 'y' : 'ies'));
	if (b.openChildren) reasons.push(b.openChildren + ' open child' + (b.openChildren === 1 ? '' : 'ren'));
	if (b.openAttentionRequests) reasons.push(b.openAttentionRequests + ' open blocking question' + (b.openAttentionRequests === 1 ? '' : 's'));
	if (b.notBefore) reasons.push('its next run at ' + time(b.notBefore));
	if (b.openWaits) reasons.push(b.openWaits + ' open wait' + (b.openWaits === 1 ? '' : 's') + ' for an event');
	return h('p', { id: 'blockers', class: 'blockers' }, reasons.length ? 'Waiting for: ' + reasons.join(', ') + '.'
		: 'Nothing blocks it.');
}

/** Why the service asked: the kinds of its requests, as the console names them. */
const KINDS = {
	crash_loop: 'crash loop',
	retries_exhausted: 'retries exhausted',
	no_progress: 'no progress',
	wait_timed_out: 'wait timed out',
};

/** The latest checkpoint: what the next holder resumes from. */
function checkpoint(item) {
	const latest = item.checkpoint;
	return h('section', { id: 'checkpoint' }, h('h2', {}, 'Latest checkpoint'),
		latest ? [h('p', {}, '#' + latest.seq + ' · by ', latest.workerId, ' (epoch ' + latest.epoch + ') · ', time(latest.createdAt)),
			h('pre', { class: 'json' }, jsonText(latest.data))]
			: h('p', { class: 'muted' }, 'No checkpoint was written.'));
}

function requests(item, reload) {
	const list = item.attentionRequests || [];
	return h('section', { id: 'questions' }, h('h2', {}, 'Questions and answers'),
		list.length === 0 ? h('p', { class: 'muted' }, 'No questions were asked.')
			: list.map((request) => {
				const answer = h('div', { class: 'card-answer' });
				if (request.status === 'open') {
					answer.append(answerForm(request, (confirmation) => {
						replace(answer, confirmation);
						setTimeout(reload, 800);
					}));
				}
				else {
					answer.append(h('p', { class: 'answer-text' }, h('strong', {}, 'Answer by ', request.resolvedBy ?? '',
						' · ', time(request.resolvedAt), ': ')), h('pre', { class: 'resolution' }, request.resolution ?? ''));
				}
				return h('article', { class: 'card request', 'data-request-id': request.id },
					h('header', {}, statusBadge(request.status), ' ', request.blocking ? 'blocking' : 'non-blocking',
						' · asked by ', request.workerId ?? 'the service', ' ',
						request.kind ? h('span', { class: 'badge kind', 'data-kind': request.kind }, KINDS[request.kind] ?? request.kind) : null,
						' · ', time(request.openedAt)),
					h('pre', { class: 'question' }, request.question),
					Object.keys(request.context || {}).length
						? h('details', {}, h('summary', {}, 'Context'), h('pre', { class: 'json' }, jsonText(request.context)))
						: null,
					answer);
			}));
}

// Durable waits: the event each waits for, how it ended, and the payload of the event that matched it.
function waits(item) {
	const list = item.waits || [];
	if (list.length === 0) {
		return null;
	}
	return h('section', { id: 'waits' }, h('h2', {}, 'Waits'),
		h('table', { class: 'list' },
			h('thead', {}, h('tr', {}, ['Event', 'Key', 'Status', 'Registered', 'Deadline', 'On timeout', 'Ended']
				.map((name) => h('th', {}, name)))),
			h('tbody', {}, list.map((wait) => h('tr', { 'data-wait-id': wait.id },
				h('td', {}, wait.event.name),
				h('td', {}, wait.event.key),
				h('td', {}, statusBadge(wait.status)),
				h('td', {}, time(wait.createdAt)),
				h('td', {}, wait.timeoutAt ? time(wait.timeoutAt) : 'none'),
				h('td', {}, wait.onTimeout),
				h('td', {}, wait.resolvedAt ? time(wait.resolvedAt) : 'waiting'))))),
		list.filter((wait) => wait.matchedEvent).map((wait) => h('details', { class: 'matched-event' },
			h('summary', {}, 'Event that matched the wait for ', wait.event.name, ' / ', wait.event.key),
			h('pre', { class: 'json' }, jsonText(wait.matchedEvent)))));
}

function timeline(leases) {
	return h('section', { id: 'leases' }, h('h2', {}, 'Lease timeline'),
		leases.length === 0 ? h('p', { class: 'muted' }, 'Never claimed.')
			: h('table', { class: 'list' },
				h('thead', {}, h('tr', {}, ['Epoch', 'Worker', 'Acquired', 'Renewed', 'Expires', 'Ended', 'Outcome', 'Reason']
					.map((name) => h('th', {}, name)))),
				h('tbody', {}, leases.map((lease) => h('tr', { 'data-epoch': String(lease.epoch) },
					h('td', { class: 'number' }, String(lease.epoch)),
					h('td', {}, lease.workerId),
					h('td', {}, time(lease.acquiredAt)),
					h('td', {}, time(lease.renewedAt)),
					h('td', {}, time(lease.expiresAt)),
					h('td', {}, lease.endedAt ? time(lease.endedAt) : 'active'),
					h('td', {}, lease.outcome ?? 'active'),
					h('td', { class: 'reason' }, lease.reason ?? ''))))));
}

export function itemPage(container, id) {
	let live = true;
	const load = async () => {
		try {
			const item = await api.item(id);
			const children = item.children || [];
			const [dependents, leases, parent, childPage] = await Promise.all([
				api.dependents(id),
				api.leases(id),
				item.parentId ? api.item(item.parentId).catch(() => null) : Promise.resolve(null),
				children.length ? api.items({ parentId: id, limit: 500 }).catch(() => null) : Promise.resolve(null),
			]);
			const waitsFor = siblingDependencies(children, childPage && Array.isArray(childPage.items) ? childPage.items : []);
			if (!live) return;
			const leaseList = Array.isArray(leases.leases) ? leases.leases : [];
			const refresh = h('button', { type: 'button', id: 'refresh' }, 'Refresh');
			refresh.addEventListener('click', load);
			const cancel = h('button', { type: 'button', id: 'cancel-item', class: 'danger' }, 'Cancel item…');
			cancel.hidden = item.status === 'completed' || item.status === 'cancelled';
			cancel.addEventListener('click', async () => {
				const reason = window.prompt('Cancel this item and all its open descendants? Reason (optional):');
				if (reason === null) return;
				try {
					await api.cancel(id, reason.trim());
					load();
				}
				catch (failure) {
					window.alert('Not cancelled: ' + failure.message);
				}
			});
			replace(container,
				h('p', { class: 'crumbs' }, h('a', { href: '#/items' }, 'Items'), ' / ', id),
				h('h1', { id: 'item-title', class: 'item-title' }, item.title),
				h('p', {}, statusBadge(item.status), ' ', refresh, ' ', cancel),
				blockers(item),
				h('dl', { class: 'fields' },
					field('Queue', item.queue), field('Priority', String(item.priority)), field('Epoch', String(item.epoch)),
					field('Created', time(item.createdAt)), field('Updated', time(item.updatedAt)),
					field('Ready since', time(item.readySince)), field('Closed', time(item.closedAt)),
					field('Cancel reason', item.cancelReason),
					field('Attempts', String(item.attempts ?? 0) + (item.retry ? ' of ' + item.retry.maxAttempts : '')),
					field('Next run', item.blockers && item.blockers.notBefore ? time(item.blockers.notBefore) : null),
					field('Active lease', item.lease ? item.lease.workerId + ' (epoch ' + item.lease.epoch + ', expires '
						+ time(item.lease.expiresAt) + ')' : null)),
				item.description ? h('section', {}, h('h2', {}, 'Description'), h('pre', { class: 'description' }, item.description)) : null,
				h('section', {}, h('h2', {}, 'Neighbourhood'),
					h('div', { class: 'graph-frame' }, neighbourhood({ item, parent, dependencies: item.dependsOn || [],
						dependents: dependents.items, children, waitsFor })),
					dependents.nextCursor ? h('p', { class: 'muted' }, 'Only the first 100 dependents are shown.') : null),
				h('div', { class: 'columns' },
					h('section', { id: 'parent', class: 'related' }, h('h2', {}, 'Parent'),
						parent ? h('p', { 'data-item-id': parent.id }, itemLink(parent.id, parent.title), ' ', statusBadge(parent.status))
							: h('p', { class: 'muted' }, 'None: a top-level item.')),
					linkedList('dependencies', 'Depends on', item.dependsOn || [], 'No dependencies.'),
					linkedList('dependents', 'Needed by', dependents.items, 'Nothing depends on it.'),
					childrenList(children, waitsFor)),
				checkpoint(item),
				requests(item, load),
				waits(item),
				timeline(leaseList),
				h('section', {}, h('h2', {}, 'Metadata'), h('pre', { id: 'metadata', class: 'json' }, jsonText(item.metadata))),
				item.result !== null && item.result !== undefined
					? h('section', {}, h('h2', {}, 'Result'), h('pre', { class: 'json' }, jsonText(item.result))) : null);
		}
		catch (failure) {
			if (!live) return;
			replace(container, h('p', { class: 'error', role: 'alert' },
				failure instanceof ApiError && failure.status === 404 ? 'No such item.' : failure.message));
		}
	};
	// Live: read again when the stream tells of a change to this item, unless an answer is being
	// typed or sent (a redraw would lose it); then the Refresh button says that it changed.
	let pending = null;
	const changed = () => {
		pending = null;
		const typing = [...container.querySelectorAll('textarea')].some((field) => field.value)
			|| container.querySelector('form[data-sending]');
		if (!typing) {
			load();
			return;
		}
		const refresh = container.querySelector('#refresh');
		if (refresh) {
			refresh.textContent = 'Refresh (changed)';
			refresh.dataset.changed = 'true';
		}
	};
	const unsubscribe = onChanges((change) => {
		if (live && pending === null && (change === null || change.itemId === id)) {
			// Changes of one transaction arrive together: one read for all of them.
			pending = setTimeout(changed, 50);
		}
	});
	replace(container, h('p', { class: 'muted' }, 'Loading…'));
	load();
	return () => {
		live = false;
		clearTimeout(pending);
		unsubscribe();
	};
}
