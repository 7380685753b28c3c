package dev.zklock.recipes.test.history;

import java.util.ArrayList;
import java.util.List;

/**
 * A call or return in {@link LockSearch}'s doubly linked list of entries; lifting a call takes its return out with
 * it, and unlifting in the reverse order puts both back where they were (Knuth's dancing links).
 *
 * <p>Not thread-safe: confined to the search that made it.
 */
final class SearchEntry {
    final int op;
    final boolean call;
    final long time;
    SearchEntry match;
    SearchEntry prev;
    SearchEntry next;

    SearchEntry(int op, boolean call, long time) {
        this.op = op;
        this.call = call;
        this.time = time;
    }

    /** The list of entries in time order, calls before returns at equal times, behind a head sentinel. */
    static SearchEntry listOf(List<Op> ops) {
        List<SearchEntry> list = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            SearchEntry call = new SearchEntry(i, true, op.start());
            list.add(call);
            if (op.isOk()) {
                call.match = new SearchEntry(i, false, op.end());
                list.add(call.match);
            }
        }
        list.sort((a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Boolean.compare(b.call, a.call));
        SearchEntry head = new SearchEntry(-1, false, Long.MIN_VALUE);
        SearchEntry last = head;
        for (SearchEntry e : list) {
            last.next = e;
            e.prev = last;
            last = e;
        }
        return head;
    }

    void lift() {
        unlink(this);
        if (match != null) {
            unlink(match);
        }
    }

    void unlift() {
        if (match != null) {
            relink(match);
        }
        relink(this);
    }

    private static void unlink(SearchEntry e) {
        e.prev.next = e.next;
        if (e.next != null) {
            e.next.prev = e.prev;
        }
    }

    private static void relink(SearchEntry e) {
        e.prev.next = e;
        if (e.next != null) {
            e.next.prev = e;
        }
    }
}
