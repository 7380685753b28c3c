package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.time.Duration;
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
 * Judges the terms of the leadership workloads beyond what the lock checkers judge of them as holds (two leaders both
 * HELD are their overlaps and dishonest holds):
 *
 * <ol>
 *   <li><b>Every revoked delivered</b>: a term is <em>cut off</em> when the observer saw its session end ({@code
 *       session "<client> <session> expired"}, the session its holder recorded at the grant), or its client recorded
 *       its connection SUSPENDED or LOST, at least {@link #HEAR_NANOS} before the term ended (its release invoked, or
 *       the end of the history): the time a holder's next look needs to hear what its client heard. Its holder must
 *       have recorded a {@code state} IN_DOUBT or LOST before the term ended.
 *   <li><b>Epochs strictly growing</b>: in the order of their grants, each term's epoch (its token) is larger than
 *       every epoch granted before it on the election, whichever process held it.
 *   <li><b>The observer never behind by more than one event after a heal</b>: an event is a change of leader, a term
 *       granted (a hand-over is one change, its REVOKED and GRANTED told together after one look). At each
 *       checkpoint, a session timeout after a heal or just before the next fault starts, whichever is first, an
 *       observer ({@code <client>.obs ok leader} lines) whose client's connection had been up for {@link
 *       #SETTLE_NANOS} is behind by the terms granted by the checkpoint with an epoch larger than that of the last
 *       change it told. At most one: the term granted as the checkpoint came may not be told yet, an earlier one must
 *       be. An observer that has told nothing by a checkpoint is <em>silent</em> there (it missed every term so
 *       far).
 *   <li><b>Never a leader that is gone</b>: an observer's GRANTED is stale if its epoch is not larger than one it
 *       told GRANTED before, or if the observer process saw the term's session end more than {@link #SETTLE_NANOS}
 *       before it (the node went with the session).
 * </ol>
 *
 * <p>Cost: O(events + terms x (expiries + suspensions) + checkpoints x terms). Stateless and thread-safe; {@link
 * #check} is a pure function of the history.
 */
public final class LeadershipChecker {
    /** How long before a term's end its client must have heard of trouble for the term to owe a revocation: 50 ms. */
    static final long HEAR_NANOS = Duration.ofMillis(50).toNanos();

    /** How long a connection must have been up at a checkpoint, and how late a GRANTED may follow its session's end. */
    static final long SETTLE_NANOS = Duration.ofSeconds(1).toNanos();

    private static final String OBSERVED = "leader";

    private LeadershipChecker() {}

    /**
     * Checks the elections {@code keys} of {@code history}.
     *
     * @param history the history
     * @param keys the elections' paths
     * @param observed those of them every client JVM observes
     * @param sessionTimeout the clients' session timeout: a checkpoint is at most this long after its heal
     * @return the result per election, in path order
     */
    public static Map<String, LeadershipResult> check(
            History history, Collection<String> keys, Collection<String> observed, Duration sessionTimeout) {
        Facts facts = Facts.of(history, keys);
        Map<String, LeadershipResult> results = new TreeMap<>();
        for (String key : keys) {
            List<Term> terms = facts.terms.getOrDefault(key, List.of());
            List<String> missing = new ArrayList<>();
            long cutOff = 0;
            for (Term term : terms) {
                OptionalLong cut = facts.cutAt(term, history.end());
                if (cut.isPresent()) {
                    cutOff++;
                    if (term.revoked() >= term.endOr(history.end())) {
                        missing.add(term + ", cut at " + cut.getAsLong());
                    }
                }
            }
            Observers observers =
                    new Observers(facts, key, terms, observed.contains(key) ? sessionTimeout.toNanos() : -1);
            results.put(
                    key,
                    new LeadershipResult(
                            key,
                            terms.size(),
                            cutOff,
                            cutOff - missing.size(),
                            missing,
                            regressions(terms),
                            observers.checkpoints,
                            observers.maxBehind,
                            observers.behind,
                            observers.silent,
                            observers.stale()));
        }
        return results;
    }

    private static List<String> regressions(List<Term> terms) {
        List<String> found = new ArrayList<>();
        long highest = Long.MIN_VALUE;
        Term highestTerm = null;
        for (Term term : terms) { // in grant order
            if (term.epoch().isEmpty()) {
                continue;
            }
            long epoch = term.epoch().getAsLong();
            if (epoch <= highest) {
                found.add(term + " after " + highestTerm);
            } else {
                highest = epoch;
                highestTerm = term;
            }
        }
        return found;
    }

    /**
     * One term: the hold of {@code process}, a thread of {@code client}, on {@code session}, from its grant to its
     * end.
     *
     * @param revoked when its holder first recorded a state other than HELD, {@link Long#MAX_VALUE} if never
     * @param end when its release was invoked, {@link Long#MAX_VALUE} if never
     */
    record Term(String process, String client, String session, OptionalLong epoch, long grant, long revoked, long end) {
        Term revokedAt(long nanos) {
            return new Term(process, client, session, epoch, grant, nanos, end);
        }

        Term endedAt(long nanos) {
            return new Term(process, client, session, epoch, grant, revoked, nanos);
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

    /** What the checks read from the history, indexed. */
    static final class Facts {
        final Map<String, List<Term>> terms = new HashMap<>(); // per key, in grant order
        final Map<String, Long> sessionEnds = new HashMap<>(); // "<client> <session>"
        final Map<String, List<HistoryEvent>> connections = new HashMap<>(); // per client, in time order
        final Map<String, List<Told>> told = new TreeMap<>(); // "<client>\t<key>", in time order
        final List<Fault> faults = new ArrayList<>(); // in start order

        static Facts of(History history, Collection<String> keys) {
            Facts facts = new Facts();
            Map<String, String> sessions = new HashMap<>(); // per process: the session it recorded last
            Map<String, Term> open = new HashMap<>(); // "<process>\t<key>"
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
            long last = term.endOr(historyEnd) - HEAR_NANOS;
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

    /** The observers of one election, judged at each checkpoint. */
    private static final class Observers {
        private final Facts facts;
        private final String key;
        private final List<Term> terms;
        long checkpoints;
        long maxBehind;
        final List<String> behind = new ArrayList<>();
        final List<String> silent = new ArrayList<>();

        /** Judges at each checkpoint; none if {@code sessionNanos} is negative (an election no one observes). */
        Observers(Facts facts, String key, List<Term> terms, long sessionNanos) {
            this.facts = facts;
            this.key = key;
            this.terms = terms;
            for (int i = 0; sessionNanos >= 0 && i < facts.faults.size(); i++) {
                Fault fault = facts.faults.get(i);
                if (fault.end() == Long.MAX_VALUE) {
                    continue;
                }
                long at = fault.end() + sessionNanos;
                for (Fault next : facts.faults) {
                    if (next.start() > fault.end()) {
                        at = Math.min(at, next.start() - 1);
                        break;
                    }
                }
                judge(fault.end(), at);
            }
        }

        /** Judges every client JVM's observer of the election whose connection had settled at {@code at}. */
        private void judge(long heal, long at) {
            for (String client : facts.connections.keySet()) { // every client JVM records its connection, and observes
                if (!facts.upThrough(client, at - SETTLE_NANOS, at)) {
                    continue;
                }
                Told last = null;
                for (Told t : facts.told.getOrDefault(client + '\t' + key, List.of())) {
                    if (t.nanos() <= at) {
                        last = t;
                    }
                }
                checkpoints++;
                if (last == null) {
                    silent.add(client + " told nothing by " + at + " (heal at " + heal + ")");
                    continue;
                }
                long count = behindOf(last, at);
                maxBehind = Math.max(maxBehind, count);
                if (count > 1) {
                    behind.add(client + " " + count + " events behind at " + at + " (heal at " + heal + "), its last "
                            + last);
                }
            }
        }

        /** The changes of leader the history has by {@code at} past {@code last}: the terms granted with a larger epoch. */
        private long behindOf(Told last, long at) { // last: not null
            return terms.stream()
                    .filter(t -> t.grant() <= at && t.epoch().isPresent())
                    .filter(t -> t.epoch().getAsLong() > last.epoch())
                    .count();
        }

        List<String> stale() {
            Map<Long, Term> byEpoch = new HashMap<>();
            terms.forEach(t -> t.epoch().ifPresent(e -> byEpoch.put(e, t)));
            List<String> found = new ArrayList<>();
            facts.told.forEach((observer, told) -> {
                if (!observer.endsWith('\t' + key)) {
                    return;
                }
                long highest = Long.MIN_VALUE;
                for (Told t : told) {
                    if (!t.granted()) {
                        continue;
                    }
                    Term term = byEpoch.get(t.epoch());
                    Long gone = term == null ? null : facts.sessionEnds.get(term.client() + ' ' + term.session());
                    if (t.epoch() <= highest) {
                        found.add(observer.split("\t")[0] + " told " + t + " after epoch " + highest);
                    } else if (gone != null && gone + SETTLE_NANOS < t.nanos()) {
                        found.add(observer.split("\t")[0] + " told " + t + ", its session ended at " + gone);
                    }
                    highest = Math.max(highest, t.epoch());
                }
            });
            return found;
        }
    }
}
