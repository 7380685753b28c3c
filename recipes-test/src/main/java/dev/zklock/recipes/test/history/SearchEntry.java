package dev.zklock.recipes.test.history;

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
