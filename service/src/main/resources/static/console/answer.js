// The form that answers an attention request, on the inbox and on the item page. Answering goes
// through POST /attention-requests/{id}/resolve, exactly as an API client would.
import { api, ApiError, session } from './api.js';
import { h, itemLink, replace, statusBadge } from './dom.js';

const NAME = 'workgraph.console.name';

/**
 * Signed in with a token, the answer is recorded under the token's name (the service fills in
 * resolvedBy); without security the operator says who answers.
 */
export function answerForm(request, onAnswered) {
	const signedIn = Boolean(session.token());
	const resolution = h('textarea', { name: 'resolution', rows: 3, required: true, maxlength: 20000,
		'aria-label': 'Answer', placeholder: 'Your answer to the worker' });
	const resolvedBy = h('input', { name: 'resolvedBy', required: true, maxlength: 200, autocomplete: 'name',
		'aria-label': 'Answered by', placeholder: 'Your name' });
	resolvedBy.value = localStorage.getItem(NAME) || '';
	const error = h('p', { class: 'error', role: 'alert' });
	error.hidden = true;
	const button = h('button', { type: 'submit' }, 'Send answer');
	const form = h('form', { class: 'answer', method: 'post', 'data-request-id': request.id },
		resolution, h('div', { class: 'row' }, signedIn ? null : h('label', {}, 'Answered by ', resolvedBy), button),
		error);
	form.addEventListener('submit', async (event) => {
		event.preventDefault();
		button.disabled = true;
		// Marked while it is sent: the inbox keeps a card whose answer is on its way, even once a
		// poll finds the question closed before the confirmation is drawn.
		form.dataset.sending = 'true';
		try {
			let name;
			if (!signedIn) {
				name = resolvedBy.value.trim();
				localStorage.setItem(NAME, name);
			}
			const resolved = await api.resolve(request.id, resolution.value, name);
			onAnswered(await confirmation(resolved, request));
		}
		catch (failure) {
			error.hidden = false;
			replace(error, failure instanceof ApiError && failure.problem.code === 'already_resolved'
				? 'Someone answered this already.' : 'Not sent: ' + failure.message);
			button.disabled = false;
			delete form.dataset.sending;
		}
	});
	return form;
}

/**
 * The answer is recorded once resolve succeeds, so a failed read of the item afterwards still
 * confirms it, only without the item's new status; saying "Not sent" would invite a second answer.
 */
async function confirmation(resolved, request) {
	try {
		const item = await api.item(resolved.itemId);
		return h('p', { class: 'answered', role: 'status', 'data-item-id': item.id },
			'Answered. ', itemLink(item.id, item.title), ' is now ', statusBadge(item.status), '.');
	}
	catch (failure) {
		return h('p', { class: 'answered', role: 'status', 'data-item-id': resolved.itemId },
			'Answered. ', itemLink(resolved.itemId, request.itemTitle ?? resolved.itemId),
			'; its new status could not be read (', failure.message, ').');
	}
}
