package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.FencedStore;
import dev.zklock.recipes.test.history.HistoryWriter;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition rig's outside observer, in a network namespace no fault touches: it sees each client JVM's session end
 * on the server, deletes lock nodes as a stranger on the nemesis's command, and reads the fenced sets at the end.
 *
 * <ul>
 *   <li>Sessions: a {@link CuratorCache} on {@code /partitions-clients} (one persistent recursive watch); when a
 *       client's presence node goes, its session has ended on the server (expired or closed), and the observer records
 *       {@code observer ok session "<id> <session> expired"} (the node's owner, in hex), stamped when it saw the deletion. After a connection loss of its
 *       own the cache reads the tree again and reports what went meanwhile, later than it happened.
 *   <li>The stranger: each line of its command input ({@code stranger-delete}, or {@code delete <lock path>}) is done
 *       by a {@link StrangerCommands}, its choices drawn from the seed.
 *   <li>At the end of the run it waits, up to the grace, for the command {@value #READ_SETS} (the rig writes it once
 *       every client JVM has exited; if its command input has ended, for every presence node it knows to go instead),
 *       then records {@code observer ok read-set <key> <elements, comma-separated>} for each fenced set
 *       ({@code -} for an empty one).
 * </ul>
 *
 * <p>Confined to the thread that calls {@link #run}, which reads commands on a daemon thread of its own. Cost: one
 * persistent recursive watch and the cache's initial reads; a listing and a delete per stranger command.
 */
public final class PartitionObserver {
    private static final Logger logger = LoggerFactory.getLogger(PartitionObserver.class);
    private static final String PROCESS = "observer";

    /**
     * The command the rig writes once every client JVM has ended: the fenced sets are read now. A client paused until
     * the end of the run may write for a while after its session ended and before it exits, so the end of the
     * sessions the observer sees is not the end of the writes.
     */
    public static final String READ_SETS = "read-sets";

    private static final int SESSION_TIMEOUT_MS = 10_000;
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final ObserverOptions options;
    private final BufferedReader commands;

    /**
     * Makes the observer; nothing starts until {@link #run}.
     *
     * @param options what the rig said
     * @param commands the stranger's commands, one per line; read until their end or the end of the run
     */
    public PartitionObserver(ObserverOptions options, BufferedReader commands) {
        this.options = Objects.requireNonNull(options, "options");
        this.commands = Objects.requireNonNull(commands, "commands");
    }

    /**
     * Runs the observer: {@code --connect <cs> --history <file> --seconds <s> [--store <dir>] [--grace-seconds <s>]
     * [--seed <S>]}
     * ({@link ObserverOptions#parse}), the stranger's commands on standard input; exits 0 at the end, 2 for a bad
     * command line, 1 for any other failure.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        ObserverOptions options = Mains.parseOrExit(() -> ObserverOptions.parse(args));
        long end = System.nanoTime() + options.runLength().toNanos();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Mains.runAndExit(() -> new PartitionObserver(options, stdin).run(() -> System.nanoTime() - end >= 0));
    }

    /**
     * Observes until {@code stop} says the run is over, waits up to the grace for the clients' sessions to end, records
     * the fenced sets, and closes its client and the history.
     *
     * @param stop tells that the run is over; asked every 20 ms
     * @throws InterruptedException if the calling thread is interrupted
     */
    public void run(BooleanSupplier stop) throws InterruptedException {
        Objects.requireNonNull(stop, "stop");
        try (HistoryWriter history = HistoryWriter.open(options.history());
                CuratorFramework client = CuratorFrameworkFactory.newClient(
                        options.connect(),
                        SESSION_TIMEOUT_MS,
                        SESSION_TIMEOUT_MS / 2,
                        new ExponentialBackoffRetry(100, 3))) {
            client.start();
            client.blockUntilConnected();
            makeClientsParent(client);
            Set<String> present = ConcurrentHashMap.newKeySet();
            try (CuratorCache presence = CuratorCache.build(client, PartitionWorkloads.CLIENTS)) {
                presence.listenable()
                        .addListener(CuratorCacheListener.builder()
                                .forCreates(node -> clientOf(node).ifPresent(present::add))
                                .forDeletes(node -> clientOf(node).ifPresent(id -> {
                                    history.record(
                                            PROCESS, "ok", "session", "-", id + " " + sessionOf(node) + " expired");
                                    present.remove(id);
                                }))
                                .build());
                presence.start();
                CountDownLatch readNow = new CountDownLatch(1);
                CountDownLatch inputEnded = new CountDownLatch(1);
                AtomicBoolean over = new AtomicBoolean();
                startReader(new StrangerCommands(client, history, options.seed()), readNow, inputEnded, over);
                waitFor(stop);
                over.set(true);
                long graceEnd = System.nanoTime() + options.grace().toNanos();
                waitFor(() -> readNow.getCount() == 0
                        || (inputEnded.getCount() == 0 && present.isEmpty())
                        || System.nanoTime() - graceEnd >= 0);
                readSets(history);
            }
        }
    }

    /** Returns the client id a presence node names; empty for any other node of the cache. */
    /** The session that owned a presence node, in hex as the client records it ({@code -} if the cache had no stat). */
    private static String sessionOf(ChildData node) {
        return node.getStat() == null ? "-" : Long.toHexString(node.getStat().getEphemeralOwner());
    }

    private static Optional<String> clientOf(ChildData node) {
        ZKPaths.PathAndNode parts = ZKPaths.getPathAndNode(node.getPath());
        return parts.getPath().equals(PartitionWorkloads.CLIENTS) ? Optional.of(parts.getNode()) : Optional.empty();
    }

    private void startReader(
            StrangerCommands stranger, CountDownLatch readNow, CountDownLatch inputEnded, AtomicBoolean over) {
        Thread reader = new Thread(() -> readCommands(stranger, readNow, inputEnded, over), "stranger");
        reader.setDaemon(true); // a read of standard input cannot be interrupted: the JVM's exit ends it
        reader.start();
    }

    /**
     * Reads the command input: {@value #READ_SETS} lets the end of the run read the fenced sets; any other line is the
     * stranger's, done only until the run is {@code over}. With no one to write that command (the input ended), the
     * end of the run waits for the clients' sessions to end instead.
     */
    private void readCommands(
            StrangerCommands stranger, CountDownLatch readNow, CountDownLatch inputEnded, AtomicBoolean over) {
        try {
            for (String line = commands.readLine(); line != null; line = commands.readLine()) {
                if (line.strip().equals(READ_SETS)) {
                    readNow.countDown();
                } else if (!line.isBlank() && !over.get()) {
                    commandQuietly(stranger, line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("stranger: cannot read commands", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inputEnded.countDown();
        }
    }

    private static void commandQuietly(StrangerCommands stranger, String line) throws InterruptedException {
        try {
            stranger.command(line);
        } catch (IllegalArgumentException e) {
            logger.warn("{}", e.getMessage());
        }
    }

    private void readSets(HistoryWriter history) {
        for (String key : PartitionWorkloads.fencedKeys()) {
            List<String> elements = FencedStore.open(PartitionWorkloads.fencedDir(options.store(), key))
                    .read();
            history.record(PROCESS, "ok", "read-set", key, elements.isEmpty() ? "-" : String.join(",", elements));
        }
    }

    private static void makeClientsParent(CuratorFramework client) throws InterruptedException {
        try {
            client.create().creatingParentsIfNeeded().forPath(PartitionWorkloads.CLIENTS);
        } catch (KeeperException.NodeExistsException made) {
            // made by a client, or by an earlier run
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("observer cannot make " + PartitionWorkloads.CLIENTS, e);
        }
    }

    /** Waits for a condition of the clock or of the cache, which no watch tells of: asked every 20 ms. */
    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.interrupted()) {
                throw new InterruptedException("observer interrupted while waiting");
            }
        }
    }
}
