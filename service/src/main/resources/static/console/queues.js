// Queues: open items per queue by status and the oldest ready item's age, refreshed every 2 s;
// each queue paused or resumed, and its cap on active leases set or removed, in place.
import { api } from './api.js';
import { age, h, replace } from './dom.js';

function countLink(queue, status, count) {
	const search = new URLSearchParams({ queue, status });
	return h('a', { href: '#/items?' + search.toString() }, String(count));
}

// Pause or resume, and the cap: a form per row. An empty cap removes it.
function controls(queue, change) {
	const pause = h('button', { type: 'button', class: 'pause' }, queue.paused ? 'Resume' : 'Pause');
	pause.addEventListener('click', () => change(queue.name, { paused: !queue.paused }));
	const cap = h('input', { name: 'maxActiveLeases', type: 'number', min: 1, max: 100000, placeholder: 'no cap',
		'aria-label': 'Most active leases of ' + queue.name });
	cap.value = queue.maxActiveLeases === null ? '' : String(queue.maxActiveLeases);
	const form = h('form', { class: 'cap' }, cap, h('button', { type: 'submit' }, 'Set cap'));
	form.addEventListener('submit', (event) => {
		event.preventDefault();
		const text = cap.value.trim();
		change(queue.name, { maxActiveLeases: text === '' ? null : Number(text) });
	});
	return [h('td', { class: 'state' }, queue.paused ? 'paused' : 'running', ' ', pause), h('td', {}, form)];
}

export function queuesPage(container) {
	const table = h('div', { id: 'queues' }, h('p', { class: 'muted' }, 'Loading…'));
	const status = h('p', { id: 'queue-status', role: 'status' });
	replace(container, h('h1', {}, 'Queues'), status, table);
	let timer = null;
	let live = true;
	const change = async (name, settings) => {
		try {
			await api.changeQueue(name, settings);
			replace(status, 'Queue ' + name + ' updated.');
			status.className = 'muted';
		}
		catch (failure) {
			replace(status, failure.message);
			status.className = 'error';
		}
		clearTimeout(timer);
		load(true);
	};
	const load = async (now = false) => {
		try {
			// Not while the operator is typing a cap: the redraw would throw it away.
			if (!now && table.contains(document.activeElement) && document.activeElement.tagName === 'INPUT') return;
			const { queues } = await api.queues();
			if (!live) return;
			replace(table, queues.length === 0 ? h('p', { class: 'muted' }, 'No queue has open items.')
				: h('table', { class: 'list' },
					h('thead', {}, h('tr', {}, ['Queue', 'Ready', 'Leased', 'Blocked', 'Oldest ready', 'State', 'Cap']
						.map((name) => h('th', {}, name)))),
					h('tbody', {}, queues.map((queue) => h('tr', { 'data-queue': queue.name },
						h('td', { class: 'name' }, queue.name),
						h('td', { class: 'number ready' }, countLink(queue.name, 'ready', queue.ready)),
						h('td', { class: 'number leased' }, countLink(queue.name, 'leased', queue.leased)),
						h('td', { class: 'number blocked' }, countLink(queue.name, 'blocked', queue.blocked)),
						h('td', { class: 'age' }, age(queue.oldestReadyAgeSeconds)),
						...controls(queue, change))))));
		}
		catch (failure) {
			if (live) replace(table, h('p', { class: 'error', role: 'alert' }, failure.message));
		}
		finally {
			if (live) {
				clearTimeout(timer);
				timer = setTimeout(load, 2000);
			}
		}
	};
	load();
	return () => {
		live = false;
		clearTimeout(timer);
	};
}
