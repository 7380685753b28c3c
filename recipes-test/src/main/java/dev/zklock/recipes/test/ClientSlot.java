package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.LongConsumer;
import org.apache.curator.framework.CuratorFramework;

/**
 * One client of a chaos run as the process it stands for: its name, the lock kind its threads use, the proxies it
 * connects through (if the run silences connections), and the client it runs on now with the lock objects made on it.
 * A {@link FaultKind#CLIENT_CLOSE} closes that client and puts a new one in its place, as a process that restarts; the
 * threads take the new client's lock objects at their next round. Safe for use by multiple threads: the current client
 * is replaced as a whole.
 */
final class ClientSlot implements AutoCloseable {
    private final String name;
    private final LockKind kind;
    private final List<String> paths;
    private final BiFunction<String, String, CuratorFramework> factory;
    private final String connectString;
    private final ClientProxies proxies; // null when the run silences no connection
    private final List<CuratorFramework> made = new ArrayList<>(); // guarded by this
    private volatile Life current;

    /**
     * @param name the client's name, also the data of its nodes
     * @param kind the lock kind of its threads
     * @param paths the lock paths of the kind's family
     * @param factory makes a started, connected client from a name and a connect string
     * @param connectString the servers' connect string, used when there are no proxies
     * @param proxies the client's proxies, or null
     */
    ClientSlot(
            String name,
            LockKind kind,
            List<String> paths,
            BiFunction<String, String, CuratorFramework> factory,
            String connectString,
            ClientProxies proxies) {
        this.name = name;
        this.kind = kind;
        this.paths = List.copyOf(paths);
        this.factory = factory;
        this.connectString = connectString;
        this.proxies = proxies;
        this.current = start();
    }

    /** Returns the lock kind of the slot's threads. */
    LockKind kind() {
        return kind;
    }

    /** Returns the client the slot runs on now, and its shared lock objects. */
    Life current() {
        return current;
    }

    /** Returns the proxies the slot's clients connect through, if the run silences connections. */
    Optional<ClientProxies> proxies() {
        return Optional.ofNullable(proxies);
    }

    /**
     * Closes the current client ({@link Faults#closeClient}, which tells {@code beforeEnd} its session first) and puts
     * a new one in its place; the old client's lock objects say they are closed from before the close on.
     *
     * @return the id of the session the close ended, or 0 if the client had none
     */
    long replace(LongConsumer beforeEnd) {
        Life old = current;
        old.closedAtNanos = System.nanoTime();
        long sessionId = Faults.closeClient(old.client, beforeEnd);
        current = start();
        old.replaced.countDown();
        return sessionId;
    }

    /** Returns how many lock objects {@link #newContenders} makes: one per lock path of the kind's family. */
    int lockObjects() {
        return paths.size();
    }

    /**
     * Makes lock objects of the slot's kind on {@code life}'s client: one per path, or per window of paths.
     *
     * @throws IllegalStateException if the client is closed (the locks refuse a closed client)
     */
    List<Contender> newContenders(Life life) {
        List<Contender> contenders = new ArrayList<>();
        for (int first = 0; first < paths.size(); first++) {
            List<String> window = new ArrayList<>();
            for (int i = 0; i < kind.pathsPerLock(); i++) {
                window.add(paths.get((first + i) % paths.size()));
            }
            contenders.add(kind.newContender(life.client, window));
        }
        return contenders;
    }

    /** Closes every client the slot made (the current one's session ends), then the proxies. */
    @Override
    public synchronized void close() {
        made.forEach(CuratorFramework::close);
        if (proxies != null) {
            proxies.close();
        }
    }

    @Override
    public String toString() {
        return name + " (" + kind + ")";
    }

    private synchronized Life start() {
        CuratorFramework client = factory.apply(name, proxies == null ? connectString : proxies.connectString());
        made.add(client);
        Life life = new Life(client);
        life.shared = newContenders(life);
        return life;
    }

    /** One client of the slot, from its start to its close, and the lock objects its threads share. */
    static final class Life {
        private final CuratorFramework client;
        private final CountDownLatch replaced = new CountDownLatch(1);
        private List<Contender> shared; // set once, before the life is published
        private volatile long closedAtNanos; // 0 while the client is open

        private Life(CuratorFramework client) {
            this.client = client;
        }

        /** Returns the client. */
        CuratorFramework client() {
            return client;
        }

        /** Returns the lock objects that the slot's threads share (all of them, for kinds owned per thread). */
        List<Contender> shared() {
            return shared;
        }

        /** Tells whether a fault has closed, or is closing, the client. */
        boolean isClosed() {
            return closedAtNanos != 0;
        }

        /**
         * Waits until a new client has taken this one's place, as the threads of a process wait for it to restart.
         *
         * @return whether it has, within {@code timeout}
         */
        boolean awaitReplaced(Duration timeout) throws InterruptedException {
            return replaced.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        /** Returns how long ago the close began, in nanoseconds; 0 if it has not. */
        long sinceCloseNanos() {
            long closed = closedAtNanos;
            return closed == 0 ? 0 : System.nanoTime() - closed;
        }
    }
}
