// The item's neighbourhood as SVG: what it waits for on the left, what waits for it on the right,
// its parent above and its children below. Every node links to its item and shows its status.
// Built with DOM calls only; titles are text nodes, truncated, with the full title as a tooltip.
import { isId, s, truncate } from './dom.js';

const W = 210;
const H = 46;
const GAP_X = 18;
const GAP_Y = 12;
const BAND = 90;
const PER_COLUMN = 12;
const CHILD_COLUMNS = 4;

function node(item, x, y, role) {
	const known = ['ready', 'blocked', 'leased', 'completed', 'cancelled'];
	const status = known.includes(item.status) ? item.status : 'unknown';
	const body = [
		s('title', {}, item.title + ' (' + status + ')'),
		s('rect', { x, y, width: W, height: H, rx: 6, class: 'node status-' + status }),
		s('text', { x: x + 10, y: y + 19, class: 'node-title' }, truncate(item.title, 28)),
		s('text', { x: x + 10, y: y + 36, class: 'node-status' }, status),
	];
	const attributes = { class: 'graph-node ' + role, 'data-item-id': item.id, 'data-role': role, 'data-status': status };
	if (!isId(item.id)) {
		return s('g', attributes, body);
	}
	return s('a', { ...attributes, href: '#/items/' + item.id.toLowerCase() }, body);
}

function column(items, x, top) {
	const columns = Math.max(1, Math.ceil(items.length / PER_COLUMN));
	const placed = items.map((item, i) => ({ item, x: x + Math.floor(i / PER_COLUMN) * (W + GAP_X),
		y: top + (i % PER_COLUMN) * (H + GAP_Y) }));
	return { placed, width: columns * (W + GAP_X) - GAP_X,
		height: Math.min(items.length, PER_COLUMN) * (H + GAP_Y) - GAP_Y };
}

function edge(from, to, kind) {
	return s('line', { x1: from.x, y1: from.y, x2: to.x, y2: to.y, class: 'edge ' + kind, 'marker-end': 'url(#arrow)' });
}

/** {item, parent (or null), dependencies, dependents, children} → an <svg>. */
export function neighbourhood({ item, parent, dependencies, dependents, children }) {
	const left = column(dependencies, 0, 0);
	const leftWidth = dependencies.length ? left.width + BAND : 0;
	const childColumns = Math.max(1, Math.min(CHILD_COLUMNS, children.length));
	const centreWidth = Math.max(W, childColumns * (W + GAP_X) - GAP_X);
	const centreX = leftWidth;
	const itemX = centreX + (centreWidth - W) / 2;
	const parentY = 0;
	const itemY = parent ? H + BAND / 2 : 0;
	const childTop = itemY + H + BAND / 2;
	const childRows = Math.ceil(children.length / CHILD_COLUMNS);
	const centreHeight = children.length ? childTop + childRows * (H + GAP_Y) - GAP_Y : itemY + H;
	const rightX = centreX + centreWidth + BAND;
	const right = column(dependents, rightX, 0);
	const sideTop = (items, height) => Math.max(0, itemY + H / 2 - height / 2);
	// Centre the side columns on the item.
	const leftTop = sideTop(dependencies, left.height);
	const rightTop = sideTop(dependents, right.height);
	left.placed.forEach((p) => { p.y += leftTop; });
	right.placed.forEach((p) => { p.y += rightTop; });
	const width = dependents.length ? rightX + right.width : centreX + centreWidth;
	const height = Math.max(centreHeight, leftTop + left.height, rightTop + right.height);

	const edges = s('g', { class: 'edges' });
	const nodes = s('g', { class: 'nodes' });
	const centre = { x: itemX + W / 2, y: itemY + H / 2 };
	nodes.append(node(item, itemX, itemY, 'self'));
	if (parent) {
		const px = itemX;
		// The parent waits for its children: the arrow points from the parent to this item.
		edges.append(edge({ x: px + W / 2, y: parentY + H }, { x: centre.x, y: itemY }, 'child-of'));
		nodes.append(node(parent, px, parentY, 'parent'));
	}
	for (const p of left.placed) {
		// This item waits for its dependencies.
		edges.append(edge({ x: itemX, y: centre.y }, { x: p.x + W, y: p.y + H / 2 }, 'depends-on'));
		nodes.append(node(p.item, p.x, p.y, 'dependency'));
	}
	for (const p of right.placed) {
		edges.append(edge({ x: p.x, y: p.y + H / 2 }, { x: itemX + W, y: centre.y }, 'depends-on'));
		nodes.append(node(p.item, p.x, p.y, 'dependent'));
	}
	const childLeft = centreX + (centreWidth - (childColumns * (W + GAP_X) - GAP_X)) / 2;
	children.forEach((child, i) => {
		const x = childLeft + (i % CHILD_COLUMNS) * (W + GAP_X);
		const y = childTop + Math.floor(i / CHILD_COLUMNS) * (H + GAP_Y);
		edges.append(edge({ x: centre.x, y: itemY + H }, { x: x + W / 2, y }, 'parent-of'));
		nodes.append(node(child, x, y, 'child'));
	});

	const pad = 8;
	return s('svg', { id: 'graph', class: 'graph', xmlns: 'http://www.w3.org/2000/svg', role: 'img',
		'aria-label': 'Dependencies, dependents, parent and children of this item',
		viewBox: [-pad, -pad, width + 2 * pad, height + 2 * pad].join(' '),
		width: width + 2 * pad, height: height + 2 * pad },
		s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7,
			markerHeight: 7, orient: 'auto-start-reverse' }, s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }))),
		edges, nodes);
}
