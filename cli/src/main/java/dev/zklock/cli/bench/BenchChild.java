package dev.zklock.cli.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A measurement in a JVM of its own, for the rows a shared JVM would spoil: one that must be the JVM's first use of the
 * lock ({@link PinnedChild}), one that must count the client's heap alone, without the embedded server's
 * ({@link HeldLocksChild}). Runs {@code main} of a bench class on this JVM's {@code java} and class path, waits for it
 * to end, and returns the figures it said: each a line {@code <PREFIX><name> <value>} on its standard output. Other
 * lines (logging) are skipped, but the last of them explain a child that failed. Stateless; {@link #run} blocks the
 * calling thread for the child's life.
 */
final class BenchChild {
    /** How every line a child writes for the bench begins. */
    static final String PREFIX = "zklock-bench-child ";

    /** The figure every child says: how many locks (or threads) held what the measurement had them take. */
    static final String HELD = "held";

    /** The most lines of the child's other output kept to explain a child that failed. */
    private static final int KEPT_LINES = 30;

    private BenchChild() {}

    /**
     * Runs {@code main} in a child JVM with {@code options} and {@code args} and returns its figures by name, in the
     * order it said them.
     *
     * @throws IllegalStateException naming the class, with the child's last lines, if it did not end within
     *     {@code timeout} (it is killed then) or ended with a status other than 0
     */
    static Map<String, String> run(Class<?> main, List<String> options, List<String> args, Duration timeout)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Map<String, String> figures = new LinkedHashMap<>();
        Deque<String> others = new ArrayDeque<>();
        Thread reader = new Thread(() -> read(process, figures, others), "zklock-bench-child-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        reader.join(); // the output ends with the process
        if (!ended || process.exitValue() != 0) {
            String why = ended ? "ended with status " + process.exitValue() : "did not end within " + timeout;
            throw new IllegalStateException(main.getSimpleName() + " (" + String.join(" ", args) + ") " + why
                    + "; its last lines:" + System.lineSeparator()
                    + String.join(System.lineSeparator(), others));
        }
        return figures;
    }

    /**
     * Runs {@code main} in a child JVM as {@link #run} does, and checks that it said {@link #HELD} with
     * {@code expected}: every lock, or every thread, of the measurement held.
     *
     * @throws IllegalStateException naming the class and both counts if it held fewer; as {@link #run} otherwise
     */
    static Map<String, String> runHolding(
            Class<?> main, List<String> options, List<String> args, Duration timeout, int expected)
            throws IOException, InterruptedException {
        Map<String, String> figures = run(main, options, args, timeout);
        String held = figures.getOrDefault(HELD, "none");
        if (!held.equals(String.valueOf(expected))) {
            throw new IllegalStateException(
                    main.getSimpleName() + " (" + String.join(" ", args) + ") held " + held + ", not " + expected);
        }
        return figures;
    }

    /** Says the figure {@code name} with {@code value} on {@code out}, from a child's main. */
    static void say(PrintStream out, String name, Object value) {
        out.println(PREFIX + name + " " + value);
        out.flush();
    }

    private static void read(Process process, Map<String, String> figures, Deque<String> others) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith(PREFIX)) {
                    String[] figure = line.substring(PREFIX.length()).split(" ", 2);
                    figures.put(figure[0], figure.length > 1 ? figure[1] : "");
                } else {
                    others.addLast(line);
                    if (others.size() > KEPT_LINES) {
                        others.removeFirst();
                    }
                }
            }
        } catch (IOException e) {
            // the child ended: nothing more to read
        }
    }
}
