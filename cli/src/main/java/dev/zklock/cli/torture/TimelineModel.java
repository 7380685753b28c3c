package dev.zklock.cli.torture;

import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.Hold;
import dev.zklock.recipes.test.history.Intervals;
import dev.zklock.recipes.test.history.Overlap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the timeline picture of a partition run shows, as data, before anything is drawn: one lane per lock path, each
 * hold a bar in its holder's row of the lane, every overlap a mark on its lane, every fault a window across all lanes;
 * times in seconds from the history's first event.
 *
 * <p>Lanes are ordered by library, then kind ({@code curator/mutex} before {@code zklock/reentrant}). A hold never
 * released ends at the history's end. Bars of one row closer than {@code mergeSeconds} are merged into one (a picture
 * cannot tell them apart anyway), so that a long run draws in bounded time and size; a merged bar is overlapped if any
 * of its holds was.
 *
 * <p>Immutable and thread-safe.
 *
 * @param lanes the lanes' names, {@code library/kind} (the path's last two segments), top lane first
 * @param rows per lane, its holders (processes) in name order: a lane's rows stack its holders' bars
 * @param clients the client JVMs that held anything, in name order: a bar's colour
 * @param bars the holds, merged where closer than the merge distance
 * @param marks the overlaps, the time two holders were inside at once
 * @param faults the nemesis's fault windows
 * @param seconds the length of the history
 */
record TimelineModel(
        List<String> lanes,
        List<List<String>> rows,
        List<String> clients,
        List<Bar> bars,
        List<Mark> marks,
        List<Fault> faults,
        double seconds) {

    /**
     * A hold, or holds of one row merged.
     *
     * @param lane the lane's index
     * @param row the holder's row in the lane
     * @param client the holder's client JVM
     * @param from the grant, seconds
     * @param to the release's invocation, seconds
     * @param overlapped whether a hold of the bar is part of an overlap
     */
    record Bar(int lane, int row, String client, double from, double to, boolean overlapped) {}

    /**
     * An overlap on one lane.
     *
     * @param lane the lane's index
     * @param from the second grant, seconds
     * @param to the first release of the two, seconds
     * @param explained whether something outside the lock explains it
     */
    record Mark(int lane, double from, double to, boolean explained) {}

    /**
     * A fault window.
     *
     * @param kind the fault kind, as the history names it
     * @param from the fault's start, seconds
     * @param to its heal, seconds (the history's end if it never healed)
     */
    record Fault(String kind, double from, double to) {}

    TimelineModel {
        lanes = List.copyOf(lanes);
        rows = rows.stream().map(List::copyOf).toList();
        clients = List.copyOf(clients);
        bars = List.copyOf(bars);
        marks = List.copyOf(marks);
        faults = List.copyOf(faults);
    }

    /**
     * Returns the model of {@code history}, its overlaps marked as the mutual-exclusion checker found them.
     *
     * @param history the history
     * @param overlaps the overlaps of every path ({@code MutexChecker}'s results)
     * @param mergeSeconds bars of one row with a gap shorter than this are merged; 0 merges none
     * @return the model
     * @throws IllegalArgumentException naming the mode and the key if an acquire or release has an unknown mode
     */
    static TimelineModel of(History history, Collection<Overlap> overlaps, double mergeSeconds) {
        long origin = history.events().isEmpty() ? 0 : history.events().get(0).nanos();
        long end = history.end();
        List<Hold> holds = Intervals.holds(history);
        Map<String, String> laneNames = laneNames(holds);
        List<String> keys = new ArrayList<>(laneNames.keySet());
        List<List<String>> rows = rowsOf(keys, holds);
        Set<Hold> overlapped = new HashSet<>();
        overlaps.forEach(o -> overlapped.addAll(List.of(o.first(), o.second())));
        List<Mark> marks = new ArrayList<>();
        for (Overlap o : overlaps) {
            int lane = keys.indexOf(o.first().key());
            marks.add(new Mark(lane, seconds(o.from(), origin, end), seconds(o.to(), origin, end), o.isExplained()));
        }
        List<Bar> bars = new ArrayList<>();
        for (Hold h : holds) {
            int lane = keys.indexOf(h.key());
            bars.add(new Bar(
                    lane,
                    rows.get(lane).indexOf(h.process()),
                    h.clientId(),
                    seconds(h.grant(), origin, end),
                    seconds(h.end(), origin, end),
                    overlapped.contains(h)));
        }
        List<Fault> faults = Intervals.faults(history).stream()
                .map(w -> new Fault(w.kind(), seconds(w.start(), origin, end), seconds(w.end(), origin, end)))
                .toList();
        List<String> clients =
                new ArrayList<>(new TreeSet<>(holds.stream().map(Hold::clientId).toList()));
        return new TimelineModel(
                new ArrayList<>(laneNames.values()),
                rows,
                clients,
                merge(bars, mergeSeconds),
                marks,
                faults,
                seconds(end, origin, end));
    }

    /** The holders of each key, in name order. */
    private static List<List<String>> rowsOf(List<String> keys, List<Hold> holds) {
        List<List<String>> rows = new ArrayList<>();
        for (String key : keys) {
            rows.add(List.copyOf(new TreeSet<>(holds.stream()
                    .filter(h -> h.key().equals(key))
                    .map(Hold::process)
                    .toList())));
        }
        return rows;
    }

    /** The lane name of every key that has holds, by library and kind; a name two keys share gets the full key. */
    private static Map<String, String> laneNames(List<Hold> holds) {
        Map<String, String> names = new TreeMap<>();
        holds.forEach(h -> names.put(h.key(), libraryAndKind(h.key())));
        Map<String, Long> uses = new TreeMap<>();
        names.values().forEach(n -> uses.merge(n, 1L, Long::sum));
        Map<String, String> ordered = new LinkedHashMap<>();
        names.entrySet().stream()
                .sorted(Map.Entry.comparingByValue(Comparator.naturalOrder()))
                .forEach(e -> ordered.put(e.getKey(), uses.get(e.getValue()) > 1 ? e.getKey() : e.getValue()));
        return ordered;
    }

    /** The last two segments of a path: {@code zklock/reentrant} for {@code /partitions/zklock/reentrant}. */
    static String libraryAndKind(String key) {
        int last = key.lastIndexOf('/');
        int before = last > 0 ? key.lastIndexOf('/', last - 1) : -1;
        return before < 0 ? key : key.substring(before + 1);
    }

    private static double seconds(long nanos, long origin, long end) {
        return (Math.min(nanos, end) - origin) / 1e9;
    }

    /** Merges bars of one lane and row whose gap is shorter than {@code gap} seconds; keeps the rest in order. */
    static List<Bar> merge(List<Bar> bars, double gap) {
        Map<List<Integer>, Bar> open = new LinkedHashMap<>();
        List<Bar> merged = new ArrayList<>();
        List<Bar> sorted = new ArrayList<>(bars);
        sorted.sort(Comparator.comparingDouble(Bar::from));
        for (Bar bar : sorted) {
            List<Integer> row = List.of(bar.lane(), bar.row());
            Bar last = open.get(row);
            if (last != null && bar.from() - last.to() < gap) {
                open.put(
                        row,
                        new Bar(
                                last.lane(),
                                last.row(),
                                last.client(),
                                last.from(),
                                Math.max(last.to(), bar.to()),
                                last.overlapped() || bar.overlapped()));
            } else {
                if (last != null) {
                    merged.add(last);
                }
                open.put(row, bar);
            }
        }
        merged.addAll(open.values());
        merged.sort(Comparator.comparingDouble(Bar::from));
        return merged;
    }
}
