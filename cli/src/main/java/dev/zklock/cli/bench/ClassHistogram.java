package dev.zklock.cli.bench;

import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The live heap of this JVM by class, as HotSpot's {@code GC.class_histogram} counts it (a full collection first, then
 * the bytes of every live object by class), read in process through the {@code DiagnosticCommand} MBean: the whole,
 * each class's bytes, and the part that is virtual threads' stack chunks ({@code jdk.internal.vm.StackChunk}, where a parked virtual
 * thread keeps its frames). A chunk's size follows the frames parked in it, and a frame the JIT has not compiled yet
 * is several times the size of a compiled one, so the chunks of the same waiting threads vary by a factor of two or
 * three from run to run; the heap without them is the objects the code made, and repeats to a few bytes. Immutable,
 * and safe for use by any thread.
 *
 * @param totalBytes the bytes of every live object
 * @param stackChunkBytes the bytes of the live stack chunks, part of {@code totalBytes}
 * @param bytesByClass the bytes of the live objects of each class, by its name as the histogram gives it (the classes of
 *     one name in several class loaders together)
 */
record ClassHistogram(long totalBytes, long stackChunkBytes, Map<String, Long> bytesByClass) {
    /** Copies {@code bytesByClass}. */
    ClassHistogram {
        bytesByClass = Map.copyOf(bytesByClass);
    }

    /** The class of a virtual thread's stack chunk, as the histogram names it. */
    static final String STACK_CHUNK = "jdk.internal.vm.StackChunk";

    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
    private static final Pattern TOTAL = Pattern.compile("^\\s*Total\\s+(\\d+)\\s+(\\d+)");

    /**
     * Takes the histogram of this JVM's live heap (a full collection; a pause of some hundred milliseconds with a few
     * hundred MB live), or returns empty where the JVM has no {@code DiagnosticCommand} MBean or no class histogram
     * (not HotSpot).
     */
    static Optional<ClassHistogram> take() {
        try {
            ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
            Object text = ManagementFactory.getPlatformMBeanServer()
                    .invoke(name, "gcClassHistogram", new Object[] {new String[0]}, new String[] {
                        String[].class.getName()
                    });
            return Optional.of(parse(String.valueOf(text)));
        } catch (JMException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Reads the output of {@code GC.class_histogram}: its {@code Total} line, the bytes of each class, and the row of
     * {@link #STACK_CHUNK} if it has one (none: 0).
     *
     * @throws IllegalArgumentException quoting the text's start if it has no {@code Total} line
     */
    static ClassHistogram parse(String text) {
        long total = -1;
        long chunks = 0;
        Map<String, Long> byClass = new HashMap<>();
        for (String line : text.split("\\R")) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                long bytes = Long.parseLong(row.group(2));
                byClass.merge(row.group(3), bytes, Long::sum);
                if (row.group(3).equals(STACK_CHUNK)) {
                    chunks += bytes;
                }
                continue;
            }
            Matcher sum = TOTAL.matcher(line);
            if (sum.find()) {
                total = Long.parseLong(sum.group(2));
            }
        }
        if (total < 0) {
            String start = text.length() > 200 ? text.substring(0, 200) + "..." : text;
            throw new IllegalArgumentException("not a class histogram (no Total line): '" + start + "'");
        }
        return new ClassHistogram(total, chunks, byClass);
    }

    /**
     * Returns the change of each class's live bytes from {@code earlier} to this histogram, the {@code most} largest
     * changes (grown or shrunk) first, by class name; none of a class that did not change.
     */
    Map<String, Long> changesSince(ClassHistogram earlier, int most) {
        Set<String> names = new TreeSet<>(bytesByClass.keySet());
        names.addAll(earlier.bytesByClass.keySet());
        Map<String, Long> changes = new LinkedHashMap<>();
        names.stream()
                .map(name -> Map.entry(name, bytesOf(name) - earlier.bytesOf(name)))
                .filter(change -> change.getValue() != 0)
                .sorted(Comparator.comparingLong((Map.Entry<String, Long> change) -> Math.abs(change.getValue()))
                        .reversed())
                .limit(most)
                .forEach(change -> changes.put(change.getKey(), change.getValue()));
        return changes;
    }

    /**
     * Prints, when the system property {@value HeldLocksChild#CLASSES} asks for N (a bench started by hand: the bench
     * sets none), the N classes whose live bytes changed most from {@code earlier} to this histogram, divided by {@code
     * count} and labelled {@code per}, as lines the bench's parsers skip; nothing otherwise.
     */
    void printChangesSince(ClassHistogram earlier, String per, int count) {
        changesSince(earlier, Integer.getInteger(HeldLocksChild.CLASSES, 0))
                .forEach((name, bytes) ->
                        System.out.printf(Locale.ROOT, "%10.2f B %s  %s%n", bytes / (double) count, per, name));
    }

    private long bytesOf(String name) {
        return bytesByClass.getOrDefault(name, 0L);
    }

    /** Returns the bytes of every live object but the stack chunks. */
    long withoutStackChunks() {
        return totalBytes - stackChunkBytes;
    }
}
