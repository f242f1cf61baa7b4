// Queues: open items per queue by status and the oldest ready item's age, refreshed every 2 s.
import { api } from './api.js';
import { age, h, replace } from './dom.js';

function countLink(queue, status, count) {
	const search = new URLSearchParams({ queue, status });
	return h('a', { href: '#/items?' + search.toString() }, String(count));
}

export function queuesPage(container) {
	const table = h('div', { id: 'queues' }, h('p', { class: 'muted' }, 'Loading…'));
	replace(container, h('h1', {}, 'Queues'), table);
	let timer = null;
	let live = true;
	const load = async () => {
		try {
			const { queues } = await api.queues();
			if (!live) return;
			replace(table, queues.length === 0 ? h('p', { class: 'muted' }, 'No queue has open items.')
				: h('table', { class: 'list' },
					h('thead', {}, h('tr', {}, ['Queue', 'Ready', 'Leased', 'Blocked', 'Oldest ready'].map((name) =>
						h('th', {}, name)))),
					h('tbody', {}, queues.map((queue) => h('tr', { 'data-queue': queue.name },
						h('td', { class: 'name' }, queue.name),
						h('td', { class: 'number ready' }, countLink(queue.name, 'ready', queue.ready)),
						h('td', { class: 'number leased' }, countLink(queue.name, 'leased', queue.leased)),
						h('td', { class: 'number blocked' }, countLink(queue.name, 'blocked', queue.blocked)),
						h('td', { class: 'age' }, age(queue.oldestReadyAgeSeconds)))))));
		}
		catch (failure) {
			if (live) replace(table, h('p', { class: 'error', role: 'alert' }, failure.message));
		}
		finally {
			if (live) timer = setTimeout(load, 2000);
		}
	};
	load();
	return () => {
		live = false;
		clearTimeout(timer);
	};
}
