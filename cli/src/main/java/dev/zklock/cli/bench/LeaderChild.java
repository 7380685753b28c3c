package dev.zklock.cli.bench;

import dev.zklock.cli.Clients;
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
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * A leader in a process of its own, for the bench's row of {@code kill -9}: a child JVM on this JVM's class path that
 * connects a client with a short session, starts one contestant of a {@link LeaderPair}'s side and says on its
 * standard output when its session is made and when it leads; the bench kills it with {@link Process#destroyForcibly()}
 * (SIGKILL), so its session is never closed and ends only when the server times it out. The child also ends when its
 * standard input closes (the bench's JVM ended). An instance is the bench's handle on one child; confined to the
 * bench's thread, its output read by a thread of its own.
 */
final class LeaderChild implements AutoCloseable {
    /** How every line the child writes for the bench begins; other lines (logging) are skipped. */
    static final String PREFIX = "zklock-leader-child ";

    /** What the reader of the child's output adds when the output ends; the child never says it. */
    private static final String ENDED = "(the output ended)";

    private static final List<String> JVM_OPTIONS =
            List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto");

    /** The most lines of the child's standard error kept to explain a child that failed. */
    private static final int ERROR_LINES = 20;

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Deque<String> errors = new ArrayDeque<>(); // the last lines of its standard error; guarded by itself

    private LeaderChild(Process process) {
        this.process = process;
        daemon(this::readLines, "zklock-bench-leader-child-" + process.pid());
        daemon(this::readErrors, "zklock-bench-leader-child-errors-" + process.pid());
    }

    private static void daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Starts a child that runs {@code pair}'s contestant of {@code side} on {@code path} as participant {@code id}, its
     * client on {@code connectString} with a session of {@code sessionMs}.
     */
    static LeaderChild start(LeaderPair pair, Side side, String connectString, String path, String id, int sessionMs)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), LeaderChild.class.getName()));
        command.addAll(List.of(pair.key(), side.name(), connectString, path, id, String.valueOf(sessionMs)));
        Process process = new ProcessBuilder(command).start();
        return new LeaderChild(process);
    }

    /** Returns the child's process id. */
    long pid() {
        return process.pid();
    }

    /** Tells whether the child's process is still running. */
    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits up to {@code timeout} for the child to say {@code word} and returns what follows it on the line.
     *
     * @throws IllegalStateException naming the child, with the last lines of its standard error, if it did not say it
     *     in time or ended first
     */
    String await(String word, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.equals(ENDED)) {
                String said;
                synchronized (errors) {
                    said = String.join(System.lineSeparator(), errors);
                }
                throw new IllegalStateException("leader child " + pid() + " did not say '" + word + "' within "
                        + timeout.toMillis() + " ms (alive: " + process.isAlive() + "); its last error lines:"
                        + System.lineSeparator() + said);
            }
            if (line.startsWith(word + " ") || line.equals(word)) {
                return line.substring(word.length()).strip();
            }
        }
    }

    /** Kills the child as {@code kill -9} does, and waits for it to end. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }

    private void readLines() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith(PREFIX)) {
                    lines.add(line.substring(PREFIX.length()));
                }
            }
        } catch (IOException e) {
            // the child ended: nothing more to read
        }
        lines.add(ENDED);
    }

    private void readErrors() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (errors) {
                    errors.addLast(line);
                    if (errors.size() > ERROR_LINES) {
                        errors.removeFirst();
                    }
                }
            }
        } catch (IOException e) {
            // the child ended: nothing more to read
        }
    }

    /**
     * The child's main: {@code <pair key> <side> <connect string> <path> <id> <session ms>}. Says {@code session <id in
     * hex> <negotiated timeout in ms>} once connected and {@code granted} each time it leads, then waits for its
     * standard input to close.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            throw new IllegalArgumentException(
                    "expected <pair> <side> <connect> <path> <id> <session ms>, not " + String.join(" ", args));
        }
        LeaderPair pair = LeaderPair.ofKey(args[0]);
        Side side = Side.valueOf(args[1]);
        int sessionMs = Integer.parseInt(args[5]);
        PrintStream out = System.out;
        CuratorFramework client = Clients.connect(args[2], args[4], sessionMs, 10_000);
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        say(out, "session " + Long.toHexString(session) + " " + negotiated);
        TermLog log = new TermLog(id -> say(out, "granted"));
        Contestant contestant = pair.contestant(side, client, args[3], args[4], log);
        contestant.start();
        while (System.in.read() >= 0) {
            // the bench kills the child; an end of input means the bench's JVM is gone
        }
        contestant.close();
        client.close();
    }

    private static void say(PrintStream out, String line) {
        synchronized (out) {
            out.println(PREFIX + line);
            out.flush();
        }
    }
}
