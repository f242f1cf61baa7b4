// The item's neighbourhood as SVG, read left to right as "waits for": what needs this item on the
// left, the item in the middle with its parent above and its children below, what it waits for
// on the right. Each group is a labelled frame with one arrow, so that fifty nodes stay readable
// (no edge crosses a node); every node links to its item and shows its status. Built with DOM
// calls only; titles are text nodes, shortened, with the full title as the node's tooltip.
import { isId, s, truncate } from './dom.js';

const W = 200;
const H = 44;
const GAP = 12;
const PAD = 12;
const LABEL = 22;
const BAND = 56;
const PER_COLUMN = 10;
const CHILD_COLUMNS = 5;
const STATUSES = ['ready', 'blocked', 'leased', 'completed', 'cancelled'];

function node(item, x, y, role, waitsFor = []) {
	const status = STATUSES.includes(item.status) ? item.status : 'unknown';
	const waits = waitsFor.length ? '; waits for ' + waitsFor.map((sibling) => sibling.title).join(', ') : '';
	const body = [
		s('title', {}, item.title + ' (' + status + ')' + waits),
		s('rect', { x, y, width: W, height: H, rx: 6, class: 'node status-' + status }),
		s('text', { x: x + 10, y: y + 18, class: 'node-title' }, truncate(item.title, 25)),
		s('text', { x: x + 10, y: y + 35, class: 'node-status' }, status),
	];
	const attributes = { class: 'graph-node ' + role, 'data-item-id': item.id, 'data-role': role, 'data-status': status };
	if (waitsFor.length) {
		// Siblings it waits for: how many on the node's bottom line, their titles in its tooltip
		// and in the list of children (arrows between siblings would cross other nodes).
		body.push(s('text', { x: x + W - 10, y: y + 35, class: 'node-waits', 'text-anchor': 'end' },
			'waits for ' + waitsFor.length));
	}
	if (!isId(item.id)) {
		return s('g', attributes, body);
	}
	return s('a', { ...attributes, href: '#/items/' + item.id.toLowerCase() }, body);
}

/** A labelled frame of nodes laid out in a grid, filled column by column or row by row. */
function group(items, role, label, columns, byRow, waitsFor = new Map()) {
	const cols = Math.max(1, columns);
	const rows = Math.max(1, Math.ceil(items.length / cols));
	const width = PAD * 2 + cols * W + (cols - 1) * GAP;
	const height = LABEL + PAD + rows * H + (rows - 1) * GAP + PAD;
	return {
		width,
		height,
		draw(x, y) {
			const nodes = items.map((item, i) => {
				const col = byRow ? i % cols : Math.floor(i / rows);
				const row = byRow ? Math.floor(i / cols) : i % rows;
				return node(item, x + PAD + col * (W + GAP), y + LABEL + PAD + row * (H + GAP), role,
					waitsFor.get(item.id) || []);
			});
			return s('g', { class: 'group ' + role },
				s('rect', { x, y, width, height, rx: 8, class: 'frame' }),
				s('text', { x: x + PAD, y: y + 16, class: 'frame-label' }, label + ' (' + items.length + ')'),
				nodes);
		},
	};
}

function arrow(x1, y1, x2, y2) {
	return s('line', { x1, y1, x2, y2, class: 'edge', 'marker-end': 'url(#arrow)' });
}

/**
 * {item, parent (or null), dependencies, dependents, children, waitsFor (child id → the siblings it
 * waits for)} → an <svg>.
 */
export function neighbourhood({ item, parent, dependencies, dependents, children, waitsFor = new Map() }) {
	const left = dependents.length
		? group(dependents, 'dependent', 'Needed by', Math.ceil(dependents.length / PER_COLUMN), false) : null;
	const right = dependencies.length
		? group(dependencies, 'dependency', 'Depends on', Math.ceil(dependencies.length / PER_COLUMN), false) : null;
	const below = children.length
		? group(children, 'child', 'Children', Math.min(CHILD_COLUMNS, children.length), true, waitsFor) : null;

	const sideHeight = Math.max(left ? left.height : 0, right ? right.height : 0, H);
	const parentHeight = parent ? H + BAND : 0;
	const middleX = left ? left.width + BAND : 0;
	const middleWidth = W;
	const rightX = middleX + middleWidth + BAND;
	const rowWidth = right ? rightX + right.width : middleX + middleWidth;
	const width = Math.max(rowWidth, below ? below.width : 0);
	// Centre the middle row when the children are wider than it.
	const shift = Math.max(0, (width - rowWidth) / 2);
	const itemX = shift + middleX;
	const itemY = parentHeight + (sideHeight - H) / 2;
	const belowY = parentHeight + sideHeight + BAND;
	const height = below ? belowY + below.height : parentHeight + sideHeight;

	const edges = s('g', { class: 'edges' });
	const nodes = s('g', { class: 'nodes' });
	nodes.append(node(item, itemX, itemY, 'self'));
	if (parent) {
		edges.append(arrow(itemX + W / 2, H, itemX + W / 2, itemY));
		nodes.append(node(parent, itemX, 0, 'parent'));
	}
	if (left) {
		const y = parentHeight + (sideHeight - left.height) / 2;
		nodes.append(left.draw(shift, y));
		edges.append(arrow(shift + left.width, itemY + H / 2, itemX, itemY + H / 2));
	}
	if (right) {
		const x = shift + rightX;
		const y = parentHeight + (sideHeight - right.height) / 2;
		nodes.append(right.draw(x, y));
		edges.append(arrow(itemX + W, itemY + H / 2, x, itemY + H / 2));
	}
	if (below) {
		const x = (width - below.width) / 2;
		nodes.append(below.draw(x, belowY));
		edges.append(arrow(itemX + W / 2, itemY + H, itemX + W / 2, belowY));
	}

	const pad = 8;
	return s('svg', { id: 'graph', class: 'graph', xmlns: 'http://www.w3.org/2000/svg', role: 'img',
		'aria-label': 'What needs this item, what it waits for, its parent and its children',
		viewBox: [-pad, -pad, width + 2 * pad, height + 2 * pad].join(' '),
		width: width + 2 * pad, height: height + 2 * pad },
		s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8,
			markerHeight: 8, orient: 'auto-start-reverse' }, s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }))),
		edges, nodes);
}
