import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Rows drawn beyond the visible ones on each side, so a quick scroll shows no blank. */
const OVERSCAN = 8;

export interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  label: string;
  selectedIndex: number | null;
  onSelect: (index: number) => void;
  /** Keep the newest (last) row in view while the list is scrolled to its end. */
  followTail: boolean;
  renderRow: (item: T) => ComponentChildren;
  keyOf: (item: T) => string | number;
}

/**
 * A list that draws only the rows in view (a few dozen, however many items there are), so
 * 10,000 journal entries scroll as smoothly as ten. A listbox: arrows and Home/End move the
 * selection, and each row tells its place with aria-posinset/aria-setsize.
 */
export function VirtualList<T>({ items, rowHeight, label, selectedIndex, onSelect, followTail, renderRow, keyOf }: VirtualListProps<T>) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(400);
  const atEnd = useRef(true);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // New rows arriving while the list sits at its end keep it there, as a terminal's tail does.
  useLayoutEffect(() => {
    const element = box.current;
    if (element && followTail && atEnd.current) element.scrollTop = element.scrollHeight;
  }, [items.length, followTail]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);

  function select(index: number) {
    const clamped = Math.min(Math.max(index, 0), items.length - 1);
    if (clamped < 0) return;
    onSelect(clamped);
    const element = box.current;
    if (!element) return;
    const top = clamped * rowHeight;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + rowHeight > element.scrollTop + element.clientHeight) element.scrollTop = top + rowHeight - element.clientHeight;
  }

  function onKeyDown(event: KeyboardEvent) {
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10 };
    const current = selectedIndex ?? -1;
    if (event.key in moves) select(current + (moves[event.key] ?? 0));
    else if (event.key === 'Home') select(0);
    else if (event.key === 'End') select(items.length - 1);
    else return;
    event.preventDefault();
  }

  const rows = [];
  for (let index = first; index < last; index++) {
    const item = items[index] as T;
    rows.push(
      <div
        key={keyOf(item)}
        id={`row-${keyOf(item)}`}
        role="option"
        aria-selected={index === selectedIndex}
        aria-posinset={index + 1}
        aria-setsize={items.length}
        class="row"
        style={{ position: 'absolute', top: `${index * rowHeight}px`, height: `${rowHeight}px`, left: 0, right: 0 }}
        onClick={() => onSelect(index)}
      >
        {renderRow(item)}
      </div>,
    );
  }
  // Only a drawn row can be the active one: the others have no element to point at.
  const selected = selectedIndex !== null && selectedIndex >= first && selectedIndex < last ? items[selectedIndex] : undefined;

  return (
    <div
      ref={box}
      class="journal"
      role="listbox"
      aria-label={label}
      tabIndex={0}
      aria-activedescendant={selected === undefined ? undefined : `row-${keyOf(selected)}`}
      onKeyDown={onKeyDown}
      onScroll={(event) => {
        const element = event.currentTarget;
        setScrollTop(element.scrollTop);
        atEnd.current = element.scrollTop + element.clientHeight >= element.scrollHeight - rowHeight;
      }}
    >
      <div style={{ height: `${items.length * rowHeight}px` }}>{rows}</div>
    </div>
  );
}
