package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What {@link LeadershipChecker} reads from a history, indexed: the terms of each election (a grant to its release,
 * with the first revocation its holder recorded), the sessions the observer saw end, each client's connection states,
 * the changes each client JVM's observer told, and the nemesis's fault windows.
 *
 * <p>Immutable once {@link #of} returns; confined to the checker's thread. Cost: O(events).
 */
final class LeadershipFacts {
    private static final String OBSERVED = "leader";

    /**
     * One term: the hold of {@code process}, a thread of {@code client}, on {@code session}, from its grant to its
     * end.
     *
     * @param invoked when the acquire that began it was invoked: the grant lies somewhere between this and {@code grant},
     *     the acquire's ok (a process paused between its grant and its record says ok late)
     * @param revoked when its holder first recorded a state other than HELD, {@link Long#MAX_VALUE} if never
     * @param end when its release was invoked, {@link Long#MAX_VALUE} if never
     */
    record Term(
            String process,
            String client,
            String session,
            OptionalLong epoch,
            long invoked,
            long grant,
            long revoked,
            long end) {
        Term revokedAt(long nanos) {
            return new Term(process, client, session, epoch, invoked, grant, nanos, end);
        }

        Term endedAt(long nanos) {
            return new Term(process, client, session, epoch, invoked, grant, revoked, nanos);
        }

        long endOr(long historyEnd) {
            return Math.min(end, historyEnd);
        }

        @Override
        public String toString() {
            return process + " epoch " + (epoch.isPresent() ? Long.toString(epoch.getAsLong()) : "-") + " ["
                    + grant + ", " + (end == Long.MAX_VALUE ? "open" : Long.toString(end)) + "]"
                    + (revoked == Long.MAX_VALUE ? "" : " revoked at " + revoked);
        }
    }

    /** One change an observer told: {@code granted} or not (REVOKED), and the term's epoch. */
    record Told(long nanos, boolean granted, long epoch) {}

    /** A fault of the nemesis, from its invoke to its ok ({@link Long#MAX_VALUE} if it never healed). */
    record Fault(long start, long end) {}

    final Map<String, List<Term>> terms = new HashMap<>(); // per key, in grant order
    final Map<String, Long> sessionEnds = new HashMap<>(); // "<client> <session>"
    final Map<String, List<HistoryEvent>> connections = new HashMap<>(); // per client, in time order
    final Map<String, List<Told>> told = new TreeMap<>(); // "<client>\t<key>", in time order
    final List<Fault> faults = new ArrayList<>(); // in start order

    static LeadershipFacts of(History history, Collection<String> keys) {
        LeadershipFacts facts = new LeadershipFacts();
        Map<String, String> sessions = new HashMap<>(); // per process: the session it recorded last
        Map<String, Term> open = new HashMap<>(); // "<process>\t<key>"
        Map<String, Long> invoked = new HashMap<>(); // "<process>\t<key>": when its acquire under way was invoked
        Map<String, Deque<Long>> started = new HashMap<>(); // nemesis faults begun, per kind
        for (HistoryEvent e : history.events()) {
            String slot = e.process() + '\t' + e.key();
            if (e.process().equals(NemesisLog.PROCESS)) {
                facts.fault(e, started);
            } else if (e.f().equals("session")
                    && e.type() == Type.OK
                    && e.value().endsWith(" expired")) {
                String[] words = e.value().split(" ");
                facts.sessionEnds.putIfAbsent(words[0] + ' ' + words[1], e.nanos());
            } else if (e.f().equals("connection") && e.type() == Type.INFO) {
                facts.connections
                        .computeIfAbsent(e.process(), c -> new ArrayList<>())
                        .add(e);
            } else if (e.f().equals(OBSERVED) && keys.contains(e.key())) {
                String[] words = e.value().split(" ");
                facts.told
                        .computeIfAbsent(e.clientId() + '\t' + e.key(), k -> new ArrayList<>())
                        .add(new Told(e.nanos(), words[0].equals("GRANTED"), Long.parseLong(words[2])));
            } else if (e.f().equals("session") && e.type() == Type.INFO) {
                sessions.put(e.process(), e.value());
            } else if (!keys.contains(e.key())) {
                continue;
            } else if (e.f().equals("acquire") && e.type() == Type.INVOKE) {
                invoked.put(slot, e.nanos());
            } else if (e.f().equals("acquire") && e.type() == Type.OK) {
                String[] words = e.value().split(" ");
                OptionalLong epoch = words.length < 2 || words[1].equals(HistoryEvent.NONE)
                        ? OptionalLong.empty()
                        : OptionalLong.of(Long.parseLong(words[1]));
                String session = sessions.getOrDefault(e.process(), HistoryEvent.NONE);
                open.put(
                        slot,
                        new Term(
                                e.process(),
                                e.clientId(),
                                session,
                                epoch,
                                invoked.getOrDefault(slot, e.nanos()),
                                e.nanos(),
                                Long.MAX_VALUE,
                                Long.MAX_VALUE));
            } else if (e.f().equals("state") && !e.value().equals("HELD") && open.containsKey(slot)) {
                Term t = open.get(slot);
                if (t.revoked() == Long.MAX_VALUE) {
                    open.put(slot, t.revokedAt(e.nanos()));
                }
            } else if (e.f().equals("release") && e.type() == Type.INVOKE && open.containsKey(slot)) {
                facts.add(e.key(), open.remove(slot).endedAt(e.nanos()));
            }
        }
        open.forEach((slot, t) -> facts.add(slot.substring(slot.indexOf('\t') + 1), t));
        started.values().forEach(s -> s.forEach(start -> facts.faults.add(new Fault(start, Long.MAX_VALUE))));
        facts.terms.values().forEach(list -> list.sort(Comparator.comparingLong(Term::grant)));
        facts.faults.sort(Comparator.comparingLong(Fault::start));
        return facts;
    }

    private void add(String key, Term term) {
        terms.computeIfAbsent(key, k -> new ArrayList<>()).add(term);
    }

    private void fault(HistoryEvent e, Map<String, Deque<Long>> started) {
        if (e.type() == Type.INVOKE) {
            started.computeIfAbsent(e.f(), f -> new ArrayDeque<>()).addLast(e.nanos());
        } else if (e.type() == Type.OK
                && !started.getOrDefault(e.f(), new ArrayDeque<>()).isEmpty()) {
            faults.add(new Fault(started.get(e.f()).removeFirst(), e.nanos()));
        }
    }

    /** When the term was first cut off (its session ended, its connection suspended or lost), if it was. */
    OptionalLong cutAt(Term term, long historyEnd) {
        long last = term.endOr(historyEnd) - LeadershipChecker.HEAR_NANOS;
        long cut = Long.MAX_VALUE;
        Long sessionEnd = sessionEnds.get(term.client() + ' ' + term.session());
        if (sessionEnd != null && sessionEnd >= term.grant() && sessionEnd <= last) {
            cut = sessionEnd;
        }
        for (HistoryEvent c : connections.getOrDefault(term.client(), List.of())) {
            boolean trouble = c.value().equals("SUSPENDED") || c.value().equals("LOST");
            if (trouble && c.nanos() >= term.grant() && c.nanos() <= last) {
                cut = Math.min(cut, c.nanos());
                break;
            }
        }
        return cut == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(cut);
    }

    /** Whether {@code client}'s connection was up, with no change, through {@code [from, to]}. */
    boolean upThrough(String client, long from, long to) {
        String state = "CONNECTED"; // a client's first connection line comes when it connects
        for (HistoryEvent c : connections.getOrDefault(client, List.of())) {
            if (c.nanos() > to) {
                break;
            }
            if (c.nanos() >= from) {
                return false;
            }
            state = c.value();
        }
        return state.equals("CONNECTED") || state.equals("RECONNECTED");
    }
}
