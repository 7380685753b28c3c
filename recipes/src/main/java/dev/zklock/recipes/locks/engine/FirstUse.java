package dev.zklock.recipes.locks.engine;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;

/**
 * The first {@value #PIONEERS} blocking acquires of virtual threads in this JVM go one at a time, each until it ends or
 * waits for its turn, while the virtual threads that come meanwhile wait for them; after that, nothing (one read of a
 * volatile field). Why: the first run of a code path loads and initializes its classes and links its lambdas, and a
 * virtual thread that waits for another thread doing that (a contended class-loading lock, a class initialized by
 * another thread, a lambda being linked) cannot leave its carrier: the JDK records {@code jdk.VirtualThreadPinned}, and
 * ten thousand virtual threads taking one lock at once in a fresh JVM pinned carriers up to eight times that way on
 * their first acquires; now none, at ten thousand and at a hundred thousand ({@code VirtualThreadFirstUseTest}). Waiting
 * here parks them on a future, which pins nothing. One at a time, the first acquires run the paths a crowd then runs
 * together: an acquire with the lock free and its grant, one that queues behind another client's node, one behind a
 * node of its own client; the first of them also has every class of zklock's lock packages and of Curator's
 * implementation loaded, on a platform thread it waits for ({@link #loadPackages}: about 25 ms, once per JVM, only where
 * virtual threads lock). What a thread runs
 * before it gets here, the engine's messages and the classes ZooKeeper's client makes for a request are loaded when the
 * first lock is made ({@link #prepare}).
 *
 * <p>The state is the JVM's own (its classes are loaded once, for every client), so it lives in this class and nowhere
 * else; a class loader that loads zklock again has its own. Platform threads never wait here: they do not pin. A
 * waiter waits at most until its deadline, and at most {@value #BOUND_MILLIS} ms for each first acquire ahead of it:
 * one that takes longer waits for a connection, and gives way. No ZooKeeper call. Thread-safe.
 */
public final class FirstUse {
    static final int PIONEERS = 4;
    static final long BOUND_MILLIS = 1_000;

    /**
     * The classes of ZooKeeper's client that a request of the engine makes on the calling thread, some only on a branch
     * the first acquires need not take (a child watch, a removal of a watch, a multi): loaded when the first lock is made.
     */
    private static final List<String> ZOOKEEPER_REQUESTS = List.of(
            "org.apache.zookeeper.ZooKeeper$WatchRegistration",
            "org.apache.zookeeper.ZooKeeper$ChildWatchRegistration",
            "org.apache.zookeeper.ZooKeeper$DataWatchRegistration",
            "org.apache.zookeeper.ZooKeeper$ExistsWatchRegistration",
            "org.apache.zookeeper.ZooKeeper$AddWatchRegistration",
            "org.apache.zookeeper.ClientCnxn$Packet",
            "org.apache.zookeeper.WatchDeregistration",
            "org.apache.zookeeper.AddWatchMode",
            "org.apache.zookeeper.MultiOperationRecord",
            "org.apache.zookeeper.MultiResponse",
            "org.apache.zookeeper.Op",
            "org.apache.zookeeper.Op$OpKind",
            "org.apache.zookeeper.Op$Create",
            "org.apache.zookeeper.Op$Delete",
            "org.apache.zookeeper.Op$Check",
            "org.apache.zookeeper.Op$GetChildren",
            "org.apache.zookeeper.Op$GetData",
            "org.apache.zookeeper.proto.RequestHeader",
            "org.apache.zookeeper.proto.ReplyHeader",
            "org.apache.zookeeper.proto.MultiHeader",
            "org.apache.zookeeper.proto.CreateRequest",
            "org.apache.zookeeper.proto.DeleteRequest",
            "org.apache.zookeeper.proto.CheckVersionRequest",
            "org.apache.zookeeper.proto.GetChildrenRequest",
            "org.apache.zookeeper.proto.GetChildren2Request",
            "org.apache.zookeeper.proto.GetDataRequest",
            "org.apache.zookeeper.proto.ExistsRequest",
            "org.apache.zookeeper.proto.AddWatchRequest",
            "org.apache.zookeeper.proto.RemoveWatchesRequest",
            "org.apache.zookeeper.proto.CheckWatchesRequest");

    /**
     * The classes of ZooKeeper's client, outside the requests', that the first acquires of virtual threads loaded on
     * those threads before the first use loaded them ({@code VirtualThreadFirstUseTest} lists any that a virtual thread
     * still loads): the create's ACL and mode checks, the replies the callbacks read, a multi's results.
     */
    private static final List<String> ZOOKEEPER_FIRST_ACQUIRES = List.of(
            "org.apache.zookeeper.server.EphemeralType",
            "org.apache.zookeeper.ZooDefs$Ids",
            "org.apache.zookeeper.data.Id",
            "org.apache.zookeeper.data.ACL",
            "org.apache.zookeeper.ZooKeeper$1",
            "org.apache.zookeeper.AsyncCallback$ChildrenCallback",
            "org.apache.zookeeper.OpResult",
            "org.apache.zookeeper.OpResult$ErrorResult",
            "org.apache.zookeeper.proto.Create2Response",
            "org.apache.zookeeper.proto.GetChildrenResponse");

    /** As {@link #ZOOKEEPER_FIRST_ACQUIRES}, of Curator's, outside its implementation package. */
    private static final List<String> CURATOR_FIRST_ACQUIRES = List.of(
            "org.apache.curator.framework.api.transaction.OperationType",
            "org.apache.curator.framework.api.transaction.TypeAndPath",
            "org.apache.curator.shaded.com.google.common.collect.Lists");

    private static final AtomicBoolean PREPARED = new AtomicBoolean();
    private static final AtomicReference<Stage> STAGE = new AtomicReference<>(new Stage(null, null, 0));
    private static volatile boolean warm;

    private FirstUse() {}

    /**
     * Loads and initializes what a blocking acquire runs before it reaches {@link #enter}: called where a lock's path is
     * made, on the thread that makes the lock, so that no virtual thread loads it in a crowd.
     */
    static void prepare() {
        if (!warm && !PREPARED.get() && !PREPARED.getAndSet(true)) {
            Deadline.forever();
            Threads.isVirtual();
            waitOnce(); // the gate's own wait: a crowd of virtual threads is about to make it
            Uninterruptibles.await(CompletableFuture.completedFuture(null), 0); // the first's wait for the loading
            for (Class<?> family :
                    List.of(Event.class, Command.class, Reply.class, LocalEvent.class, LocalCommand.class)) {
                initialize(family);
            }
            loadNamed(ZooKeeper.class.getClassLoader(), ZOOKEEPER_REQUESTS);
        }
    }

    /**
     * Loads and initializes, on the first acquire of a virtual thread while the others wait, every class of zklock's
     * lock packages and of Curator's implementation package, as found where each was loaded from (a jar or a
     * directory): branches the first acquires do not take (a lost connection's guaranteed delete, a second hold of a
     * thread) then find their classes loaded. The first acquire of a virtual thread took 68 to 71 ms without this and
     * 91 to 97 ms with it, measured on two cores; a class that cannot be loaded (an optional dependency missing) is left alone.
     */
    private static void loadPackages() {
        load(FirstUse.class, "dev/zklock/recipes/locks/");
        load(CuratorFramework.class, "org/apache/curator/framework/imps/");
        loadNamed(ZooKeeper.class.getClassLoader(), ZOOKEEPER_FIRST_ACQUIRES);
        loadNamed(CuratorFramework.class.getClassLoader(), CURATOR_FIRST_ACQUIRES);
        JfrEvents.prepare();
    }

    /** Loads and initializes the classes named, those that exist. */
    private static void loadNamed(ClassLoader loader, List<String> names) {
        for (String name : names) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                // Another release names its classes otherwise: its first acquires may load them on a virtual thread.
            }
        }
    }

    /**
     * Runs {@link #loadPackages} on a platform thread of its own while the calling virtual thread waits for it, at most
     * until {@code deadline} (the loading goes on if the deadline passes first). Loading a class reads its jar under
     * the jar's monitor, and a virtual thread that meets another thread there while it loads a class cannot leave its
     * carrier: the bench's first-use row at 100,000 virtual threads recorded one such event, the first virtual thread
     * in {@code ZipFile$ZipFileInputStream.read} under {@code loadPackages}. A platform thread may wait there; the
     * waiting virtual thread parks on a future.
     */
    private static void loadPackagesAside(Deadline deadline) {
        CompletableFuture<Void> loaded = new CompletableFuture<>();
        Thread loader = new Thread( // a platform thread, whoever starts it
                () -> {
                    try {
                        loadPackages();
                    } finally {
                        loaded.complete(null);
                    }
                },
                "zklock-first-use");
        loader.setDaemon(true);
        loader.start();
        Uninterruptibles.await(loaded, deadline.remainingNanos()); // a deadline passed first: the loading goes on
    }

    private static void load(Class<?> anchor, String packagePrefix) {
        CodeSource source = anchor.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return;
        }
        List<String> names = new ArrayList<>();
        try {
            Path where = Path.of(source.getLocation().toURI());
            if (Files.isDirectory(where)) {
                Path root = where.resolve(packagePrefix);
                if (Files.isDirectory(root)) {
                    try (Stream<Path> files = Files.walk(root)) {
                        files.map(file -> where.relativize(file).toString().replace(File.separatorChar, '/'))
                                .forEach(names::add);
                    }
                }
            } else {
                try (JarFile jar = new JarFile(where.toFile())) {
                    jar.stream().map(JarEntry::getName).forEach(names::add);
                }
            }
        } catch (IOException | URISyntaxException | RuntimeException e) {
            return; // not a file (a jar inside a jar, say): the first acquires load what they need
        }
        ClassLoader loader = anchor.getClassLoader();
        for (String name : names) {
            if (name.startsWith(packagePrefix) && name.endsWith(".class") && !name.contains("JfrEvents$")) {
                String className =
                        name.substring(0, name.length() - ".class".length()).replace('/', '.');
                try {
                    Class.forName(className, true, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    // An optional dependency (Micrometer, say) is missing: that class is never used here.
                }
            }
        }
    }

    /** Waits once, for no time, as a thread waits at {@link #enter}: loads what that wait uses. */
    private static void waitOnce() {
        try {
            new CompletableFuture<Void>().get(1, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // the point: a wait that ends
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // not ours to clear
        }
    }

    /** Initializes a sealed family of the engine's messages, every member. */
    private static void initialize(Class<?> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError("a class of zklock itself is missing", e);
        }
        Class<?>[] members = type.getPermittedSubclasses();
        if (members != null) {
            for (Class<?> member : members) {
                initialize(member);
            }
        }
    }

    /**
     * Called by a blocking acquire before anything else (a lock's public acquire, and the engine's entries under it): returns at once, unless this is a virtual thread and the JVM's
     * first acquires are still going; then it waits for its turn among them, or for the end of the first acquires.
     *
     * @return whether this call made the thread a first acquire: it must then call {@link #passed} when it ends
     * @throws InterruptedException if interrupted while waiting (nothing was made)
     */
    public static boolean enter(Deadline deadline) throws InterruptedException {
        if (warm || !Threads.isVirtual()) {
            return false;
        }
        Thread current = Thread.currentThread();
        while (!warm) {
            Stage stage = STAGE.get();
            if (stage.pioneer == current) {
                return false; // a nested call of the same acquire
            }
            if (stage.pioneer == null) {
                if (STAGE.compareAndSet(stage, new Stage(current, new CompletableFuture<>(), stage.passed))) {
                    if (stage.passed == 0) {
                        loadPackagesAside(deadline);
                    }
                    return true;
                }
                continue;
            }
            long wait = Math.min(deadline.remainingNanos(), TimeUnit.MILLISECONDS.toNanos(BOUND_MILLIS));
            try {
                stage.over.get(wait, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return false; // the deadline passed, or the first acquire ahead waits for a connection: go on
            } catch (ExecutionException e) {
                throw new AssertionError("a first use's future never fails", e);
            }
        }
        return false;
    }

    /**
     * The first acquire of {@code thread} ended, or waits for its turn: the next one may go. Nothing if
     * {@code thread} is not a first acquire now. Never blocks; called on the acquiring thread or ZooKeeper's event thread.
     */
    public static void passed(Thread thread) {
        if (warm) {
            return;
        }
        Stage stage = STAGE.get();
        if (stage.pioneer != thread || thread == null) {
            return;
        }
        Stage next = new Stage(null, null, stage.passed + 1);
        if (STAGE.compareAndSet(stage, next)) {
            if (next.passed >= PIONEERS) {
                warm = true;
            }
            stage.over.complete(null);
        }
    }

    /** Who goes now, the future of its passing, and how many went before. */
    private record Stage(Thread pioneer, CompletableFuture<Void> over, int passed) {}
}
