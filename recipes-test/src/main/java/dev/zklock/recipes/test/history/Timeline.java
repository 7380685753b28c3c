package dev.zklock.recipes.test.history;

import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What happened around the holds: the nemesis's fault windows ({@code invoke} to {@code ok} of process {@code
 * nemesis}) and the stranger's deletes (its own windows, {@link #addStrangerDelete}), the observer's session expiries
 * per client and the hold states each holder reported, indexed for the checkers' questions.
 *
 * <p>Immutable after construction and thread-safe.
 */
final class Timeline {
    private static final String STRANGER = "stranger";
    private static final String STRANGER_DELETE = "stranger-delete";

    private final List<FaultWindow> faults = new ArrayList<>();
    private final Map<String, List<Long>> expiries = new HashMap<>();
    private final Map<String, List<Long>> sessions = new HashMap<>();
    private final Map<String, Long> endsBySession =
            new HashMap<>(); // "<client> <session>": when the observer saw it end
    private final Map<String, List<HistoryEvent>> holdSessions = new HashMap<>(); // per holder: its session at grants
    private final Map<String, List<HistoryEvent>> states = new HashMap<>();
    private final Map<String, Activity> activity = new HashMap<>();
    private final Map<String, List<long[]>> suspensions = new HashMap<>(); // per client: [start, end) of each

    private Timeline() {}

    static Timeline of(History history) {
        Timeline timeline = new Timeline();
        Map<String, Deque<HistoryEvent>> started = new HashMap<>();
        for (HistoryEvent event : history.events()) {
            timeline.activity
                    .computeIfAbsent(event.process(), p -> new Activity())
                    .add(event.nanos());
            if (event.process().equals("nemesis")) {
                timeline.addFault(event, started);
            } else if (event.process().equals(STRANGER) && event.f().equals(STRANGER_DELETE)) {
                timeline.addStrangerDelete(event, started);
            } else if (event.f().equals("session")
                    && event.type() == Type.OK
                    && event.value().endsWith(" expired")) {
                String[] words = event.value().split(" ");
                timeline.expiries
                        .computeIfAbsent(words[0], c -> new ArrayList<>())
                        .add(event.nanos());
                if (words.length == 3) {
                    timeline.endsBySession.putIfAbsent(words[0] + ' ' + words[1], event.nanos());
                }
            } else if (event.f().equals("session") && event.type() == Type.INVOKE) {
                String client = event.value().split(" ", 2)[0];
                timeline.sessions
                        .computeIfAbsent(client, c -> new ArrayList<>())
                        .add(event.nanos());
            } else if (event.f().equals("session") && event.type() == Type.INFO) {
                timeline.holdSessions
                        .computeIfAbsent(event.process(), p -> new ArrayList<>())
                        .add(event);
            } else if (event.f().equals("connection") && event.type() == Type.INFO) {
                timeline.addConnection(event.process(), event.value(), event.nanos());
            } else if (event.f().equals("state") && event.type() == Type.OK) {
                timeline.states
                        .computeIfAbsent(slot(event.process(), event.key()), s -> new ArrayList<>())
                        .add(event);
            }
        }
        started.values()
                .forEach(open -> open.forEach(
                        e -> timeline.faults.add(new FaultWindow(e.f(), e.value(), e.nanos(), Long.MAX_VALUE))));
        timeline.faults.sort((a, b) -> Long.compare(a.start(), b.start()));
        return timeline;
    }

    /** A client's connection state, as its Curator listener heard it: SUSPENDED opens a window, the others close it. */
    private void addConnection(String client, String state, long nanos) {
        List<long[]> windows = suspensions.computeIfAbsent(client, c -> new ArrayList<>());
        long[] last = windows.isEmpty() ? null : windows.get(windows.size() - 1);
        boolean open = last != null && last[1] == Long.MAX_VALUE;
        if (state.equals("SUSPENDED")) {
            if (!open) {
                windows.add(new long[] {nanos, Long.MAX_VALUE});
            }
        } else if (open && !state.equals("READ_ONLY")) {
            last[1] = nanos;
        }
    }

    /** When the suspension of {@code client} that {@code time} falls in began, if it falls in one. */
    OptionalLong suspendedSince(String client, long time) {
        for (long[] window : suspensions.getOrDefault(client, List.of())) {
            if (window[0] <= time && time < window[1]) {
                return OptionalLong.of(window[0]);
            }
        }
        return OptionalLong.empty();
    }

    private void addFault(HistoryEvent event, Map<String, Deque<HistoryEvent>> started) {
        if (event.type() == Type.INVOKE) {
            started.computeIfAbsent(event.f(), f -> new ArrayDeque<>()).addLast(event);
            return;
        }
        Deque<HistoryEvent> open = started.get(event.f());
        if (event.type() == Type.OK && open != null && !open.isEmpty()) {
            HistoryEvent start = open.removeFirst();
            faults.add(new FaultWindow(start.f(), start.value(), start.nanos(), event.nanos()));
        }
    }

    /**
     * A stranger's delete, as the process that makes it records it: {@code stranger invoke stranger-delete <lock path>
     * <node>} before the delete, then {@code ok} or {@code info} (done, or perhaps done) close its window, whose targets
     * are the node's path; a {@code fail} (the node went first) closes it with no window. The stranger does one delete
     * at a time, so an outcome belongs to the invocation open before it; a lone {@code fail} (no node found) has none.
     */
    private void addStrangerDelete(HistoryEvent event, Map<String, Deque<HistoryEvent>> started) {
        Deque<HistoryEvent> open = started.computeIfAbsent(STRANGER, p -> new ArrayDeque<>());
        if (event.type() == Type.INVOKE) {
            open.addLast(event);
        } else if (!open.isEmpty()) {
            HistoryEvent start = open.removeFirst();
            if (event.type() != Type.FAIL) {
                faults.add(new FaultWindow(STRANGER_DELETE, start.value(), start.nanos(), event.nanos()));
            }
        }
    }

    List<FaultWindow> faults() {
        return faults;
    }

    /** The first pause of {@code client} longer than {@code sessionNanos} that meets {@code [from, to]}. */
    Optional<FaultWindow> longPause(String client, long from, long to, long sessionNanos) {
        return faults.stream()
                .filter(w -> w.kind().equals("pause-client") && w.names(client))
                .filter(w -> w.lastsLongerThan(sessionNanos) && w.meets(from, to))
                .findFirst();
    }

    /** The nanos of every pause of {@code client} within {@code [from, to]}. */
    long pausedNanos(String client, long from, long to) {
        long paused = 0;
        for (FaultWindow w : faults) {
            if (w.kind().equals("pause-client") && w.names(client) && w.meets(from, to)) {
                paused += Math.min(w.end(), to) - Math.max(w.start(), from);
            }
        }
        return paused;
    }

    /**
     * The nanos within {@code [from, to]} in which {@code process}, a thread of {@code client}, could say nothing: each
     * pause of its client, from the pause's start until the thread's first line after it. A stopped JVM says nothing,
     * and a thread of a JVM let go again says nothing until it runs: that first line is taken after the middle of the
     * pause (the thread may run a little before the nemesis writes that the pause ended, never long after it began),
     * and a thread with no line after the pause is silent until the pause's end.
     */
    long silentNanos(String client, String process, long from, long to) {
        Activity lines = activity.getOrDefault(process, new Activity());
        long silent = 0;
        for (FaultWindow w : faults) {
            if (!w.kind().equals("pause-client") || !w.names(client)) {
                continue;
            }
            long resumed =
                    lines.firstAtOrAfter(w.start() + (w.end() - w.start()) / 2).orElse(w.end());
            long start = Math.max(w.start(), from);
            long end = Math.min(resumed, to);
            if (end > start) {
                silent += end - start;
            }
        }
        return silent;
    }

    /**
     * When the observer saw the session of a hold of {@code holder} (a thread of {@code client}) granted at {@code
     * grant} end, if that was within {@code [from, to]}.
     *
     * <p>By id when the history has them: the holder records its client's session right after each grant ({@code
     * <holder> info session <key> <session>}, its last such line at or before the grant), and the observer names the
     * session whose presence node went ({@code session "<client> <session> expired"}). A session read after the grant
     * is the grant's own unless it ended in between; then the hold was on a session already over and is judged by a
     * later end, never an earlier one.
     *
     * <p>Else by order: sessions end in the order they began, and the observer sees each end once, so the k-th {@code
     * session ... expired} of a client is the end of the k-th session the client recorded ({@code session} invoked):
     * the hold's session is the client's last before the grant. A client that records no sessions is judged by the
     * first end seen within the window.
     */
    OptionalLong expiry(String client, String holder, long grant, long from, long to) {
        Optional<String> session = sessionAt(holder, grant);
        if (session.isPresent()) {
            Long end = endsBySession.get(client + ' ' + session.get());
            return end != null && end >= from && end <= to ? OptionalLong.of(end) : OptionalLong.empty();
        }
        List<Long> seen = expiries.getOrDefault(client, List.of());
        List<Long> starts = sessions.getOrDefault(client, List.of());
        if (starts.isEmpty()) {
            return seen.stream()
                    .mapToLong(Long::longValue)
                    .filter(t -> t >= from && t <= to)
                    .findFirst();
        }
        int index = (int) starts.stream().filter(t -> t <= grant).count() - 1;
        if (index < 0 || index >= seen.size()) {
            return OptionalLong.empty();
        }
        long end = seen.get(index);
        return end >= from && end <= to ? OptionalLong.of(end) : OptionalLong.empty();
    }

    /** The session {@code holder} recorded last at or before {@code grant}, if it records them. */
    private Optional<String> sessionAt(String holder, long grant) {
        List<HistoryEvent> recorded = holdSessions.getOrDefault(holder, List.of()); // in time order
        int low = 0;
        int high = recorded.size(); // the first index past the grant lies in [low, high]
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (recorded.get(mid).nanos() <= grant) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low == 0 ? Optional.empty() : Optional.of(recorded.get(low - 1).value());
    }

    /** The states {@code process} reported for {@code key}, in time order. */
    List<HistoryEvent> states(String process, String key) {
        return states.getOrDefault(slot(process, key), List.of());
    }

    /** The first IN_DOUBT or LOST that {@code process} reported for {@code key} within {@code [from, to]}. */
    Optional<HistoryEvent> told(String process, String key, long from, long to) {
        return states(process, key).stream()
                .filter(e -> e.nanos() >= from && e.nanos() <= to)
                .filter(e -> !e.value().equals("HELD"))
                .findFirst();
    }

    /** The first stranger's delete concerning {@code key} that meets {@code [from, to]}. */
    Optional<FaultWindow> strangerDelete(String key, long from, long to) {
        return strangerDeletes(key).stream().filter(w -> w.meets(from, to)).findFirst();
    }

    /** The stranger's deletes concerning {@code key}, in the order they began. */
    List<FaultWindow> strangerDeletes(String key) {
        return faults.stream()
                .filter(w -> w.kind().equals(STRANGER_DELETE) && w.concernsKey(key))
                .toList();
    }

    private static String slot(String process, String key) {
        return process + '\t' + key;
    }

    /** The nanos of one process's lines, in the history's order (ascending). */
    private static final class Activity {
        private long[] nanos = new long[16];
        private int size;

        void add(long at) {
            if (size == nanos.length) {
                nanos = Arrays.copyOf(nanos, size * 2);
            }
            nanos[size++] = at;
        }

        OptionalLong firstAtOrAfter(long at) {
            int i = Arrays.binarySearch(nanos, 0, size, at);
            if (i < 0) {
                i = -i - 1;
            } else {
                while (i > 0 && nanos[i - 1] == at) {
                    i--;
                }
            }
            return i < size ? OptionalLong.of(nanos[i]) : OptionalLong.empty();
        }
    }
}
