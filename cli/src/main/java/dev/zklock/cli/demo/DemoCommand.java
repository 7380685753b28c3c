package dev.zklock.cli.demo;

import dev.zklock.recipes.locks.ZkReentrantLock;
import dev.zklock.recipes.test.Faults;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Clients on their own sessions contend for each kind of lock. First a {@link ZkReentrantLock}: the screen shows who
 * holds it with its fencing token and who waits, and, halfway through, the holder's session expires and the lock moves
 * on. Then a cohort lock ({@link CohortScene}), a semaphore shared with Curator's ({@link SemaphoreScene}), a
 * read/write lock ({@link ReadWriteScene}), a multi-lock ({@link MultiLockScene}) and a leader election with a crash
 * and two hand-overs ({@link LeaderScene}). Each scene ends with its outcome
 * line ({@link Outcome}), and the demo with their sum: overlaps, timeouts and nodes left, all 0 on locks that work.
 *
 * <p>Not thread-safe: picocli fills its options and calls it once, on one thread. ZooKeeper cost: the requests of the
 * locks it shows, and the readings of their queues that the screen draws.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = "Clients contend for each kind of lock on an embedded ZooKeeper (or --connect): a reentrant"
                + " lock with a session expiry, a cohort lock passed locally among threads, a semaphore shared with"
                + " Curator's, a read/write lock with a downgrade, a multi-lock, and a leader election with a crash and"
                + " two hand-overs; shows holders, waiters and"
                + " fencing tokens, and ends with the overlaps, timeouts and nodes left (all 0).")
public final class DemoCommand implements Callable<Integer> {
    private static final String[] NAMES = {"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"};

    @Spec
    CommandSpec spec;

    @Option(names = "--connect", description = "ZooKeeper connect string; default: an embedded server")
    String connect;

    @Option(
            names = "--clients",
            defaultValue = "4",
            description = "contending clients, 2 to 8 (default: ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--rounds", defaultValue = "3", description = "acquisitions per client (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(
            names = "--hold-ms",
            defaultValue = "200",
            description = "how long each holder works (default: ${DEFAULT-VALUE})")
    int holdMs;

    @Option(names = "--path", defaultValue = "/zklock-demo/lock", description = "lock path (default: ${DEFAULT-VALUE})")
    String path;

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicLong lastToken = new AtomicLong();
    private final AtomicInteger tokenRegressions = new AtomicInteger();
    private final AtomicInteger acquisitions = new AtomicInteger();
    private PrintWriter out;
    private Screen screen;

    @Override
    public Integer call() throws Exception {
        out = spec.commandLine().getOut();
        screen = new Screen(out);
        if (clients < 2 || clients > NAMES.length) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "--clients must be 2 to 8, not " + clients);
        }
        try (Ensemble ensemble = Ensemble.open(connect, spec.commandLine(), out)) {
            List<Contender> contenders = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                CuratorFramework client = ensemble.newClient(NAMES[i]);
                contenders.add(new Contender(NAMES[i], client, new ZkReentrantLock(client, path)));
            }
            say("%d clients, each on its own session, contend for %s (%d rounds each)", clients, path, rounds);
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<?>> done = new ArrayList<>();
            int expiring = clients / 2;
            for (int i = 0; i < clients; i++) {
                Contender contender = contenders.get(i);
                boolean expires = i == expiring;
                done.add(pool.submit(() -> contender.loop(expires, ensemble)));
            }
            for (Future<?> future : done) {
                future.get();
            }
            pool.shutdown();
            List<String> left = contenders.get(0).lock.participantNodes();
            say("reentrant lock: %d acquisitions, token regressions %d", acquisitions.get(), tokenRegressions.get());
            // Every acquire of this scene waits as long as it takes: none can time out.
            Outcome reentrant = new Outcome("reentrant lock", overlaps.get(), 0, left.size());
            say("%s", reentrant.line());
            String base = ZKPaths.getPathAndNode(path).getPath();
            List<Outcome> outcomes = List.of(
                    reentrant,
                    new CohortScene(ensemble, screen, ZKPaths.makePath(base, "cohort"), rounds, holdMs / 4).play(),
                    new SemaphoreScene(ensemble, screen, ZKPaths.makePath(base, "downloads"), rounds, holdMs / 4)
                            .play(),
                    new ReadWriteScene(ensemble, screen, ZKPaths.makePath(base, "catalog")).play(),
                    new MultiLockScene(ensemble, screen, ZKPaths.makePath(base, "accounts"), rounds).play(),
                    new LeaderScene(ensemble, screen, ZKPaths.makePath(base, "leader")).play());
            Outcome total = Outcome.total(outcomes);
            say("%s", total.line());
            return total.isClean() && tokenRegressions.get() == 0 ? 0 : 1;
        }
    }

    private void say(String format, Object... args) {
        screen.say(format, args);
    }

    /** One client looping acquire, work, release; one of them has its session expire while it holds. */
    private final class Contender {
        final String name;
        final CuratorFramework client;
        final ZkReentrantLock lock;

        Contender(String name, CuratorFramework client, ZkReentrantLock lock) {
            this.name = name;
            this.client = client;
            this.lock = lock;
        }

        Void loop(boolean expiresOnce, Ensemble ensemble) throws Exception {
            for (int round = 0; round < rounds; round++) {
                lock.acquire();
                long token = lock.fencingToken();
                acquisitions.incrementAndGet();
                if (inside.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                if (token <= lastToken.getAndSet(token)) {
                    tokenRegressions.incrementAndGet();
                }
                say("%-6s holds    token %d   queue: %s", name, token, queue());
                if (expiresOnce && round == 1) {
                    inside.decrementAndGet();
                    say("%-6s session expires while holding: the server deletes its node", name);
                    Faults.expireSession(client, ensemble.connectString(), ensemble.sessionTimeoutMs());
                    lock.release(); // the node went with the session: this only clears the local hold
                    continue;
                }
                Thread.sleep(holdMs); // the holder's work
                inside.decrementAndGet();
                lock.release();
                say("%-6s released", name);
            }
            return null;
        }

        /** The queue in order, each node shown by the name its client wrote into it. */
        String queue() throws Exception {
            List<String> names = new ArrayList<>();
            for (String node : lock.participantNodes()) {
                names.add(NodeOwners.of(client, node));
            }
            return String.join(" > ", names);
        }
    }
}
