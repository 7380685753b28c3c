package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.SettingDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * zklock's JFR events, recorded in process and read back: an acquisition's duration is its wait, a hold's its time
 * from grant to release with its fencing token, and a hold's state change names the connection event that caused it.
 * Every duration is checked against the times this test observed itself, never against a fixed figure.
 */
@Timeout(60)
final class LockEventsJfrTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @TempDir
    Path dir;

    /** A holder and a waiter of another client: one long wait, two holds, the tokens of both. */
    /**
     * A recording that does not set a threshold takes acquisitions and holds of 20 ms or more, as the JDK's own settings
     * take monitor waits; state changes, every one.
     */
    @Test
    void eventTypes_byDefault_takeAcquisitionsAndHoldsOf20MsOrMoreAndEveryStateChange() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        try (Recording recording = new Recording()) {
            recording.start();
            lock.acquire(); // registers zklock's event types, now that a recording runs
            lock.release();
        }

        assertThat(defaultThreshold("dev.zklock.Acquisition")).isEqualTo("20 ms");
        assertThat(defaultThreshold("dev.zklock.Hold")).isEqualTo("20 ms");
        assertThat(defaultThreshold("dev.zklock.HoldStateChange")).isEqualTo("0 ns");
    }

    private static String defaultThreshold(String eventName) {
        return FlightRecorder.getFlightRecorder().getEventTypes().stream()
                .filter(type -> type.getName().equals(eventName))
                .flatMap(type -> type.getSettingDescriptors().stream())
                .filter(setting -> setting.getName().equals("threshold"))
                .map(SettingDescriptor::getDefaultValue)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no threshold setting for " + eventName));
    }

    @Test
    void contendedRun_recordsEachAcquisitionAndHoldWithTheWaitAndTheTokensObserved() throws Exception {
        String path = zk.path("lock");
        ZkReentrantLock holderLock = new ZkReentrantLock(zk.newClient(), path);
        ZkReentrantLock waiterLock = new ZkReentrantLock(zk.newClient(), path);
        CountDownLatch letGo = new CountDownLatch(1);
        List<RecordedEvent> events;
        long holderToken;
        long waiterToken;
        long waiterQueued;
        long holderReleasing;
        long waiterStarted;
        long waiterDone;
        long holderHeldAtLeast;
        try (Recording recording = zklockRecording();
                LockActor holder = LockActor.start("holder");
                LockActor waiter = LockActor.start("waiter")) {
            recording.start();
            CompletableFuture<long[]> held = holder.submit(() -> {
                holderLock.acquire();
                long granted = System.nanoTime();
                long token = holderLock.fencingToken();
                letGo.await();
                long releasing = System.nanoTime();
                holderLock.release();
                return new long[] {token, granted, releasing};
            });
            await().until(() -> holderLock.getParticipantNodes().size() == 1);
            CompletableFuture<long[]> waited = waiter.submit(() -> {
                long started = System.nanoTime();
                waiterLock.acquire();
                long done = System.nanoTime();
                long token = waiterLock.fencingToken();
                waiterLock.release();
                return new long[] {token, started, done};
            });
            await().until(() -> holderLock.getParticipantNodes().size() == 2);
            waiterQueued = System.nanoTime(); // the waiter's acquisition began before this
            assertThat(waiterLock.acquire(Duration.ZERO))
                    .as("a third try, on the waiter's client")
                    .isFalse();
            letGo.countDown();
            long[] h = held.get(10, TimeUnit.SECONDS);
            long[] w = waited.get(10, TimeUnit.SECONDS);
            recording.stop();
            events = read(recording);
            holderToken = h[0];
            holderHeldAtLeast = h[2] - h[1];
            holderReleasing = h[2];
            waiterToken = w[0];
            waiterStarted = w[1];
            waiterDone = w[2];
        }

        List<RecordedEvent> acquisitions = ofPath(events, "dev.zklock.Acquisition", path);
        assertThat(acquisitions).hasSize(3);
        RecordedEvent first = onThread(acquisitions, "lock-actor-holder");
        RecordedEvent waited = onThread(acquisitions, "lock-actor-waiter");
        RecordedEvent tried = onThread(acquisitions, Thread.currentThread().getName());
        assertThat(List.of(first, waited, tried))
                .extracting(e -> e.getString("outcome"))
                .containsExactly("GRANTED", "GRANTED", "TIMED_OUT");
        assertThat(first.getString("kind")).isEqualTo("exclusive");
        // A create and a listing (one round trip); twice if the server had reaped the empty lock path meanwhile (the
        // first create finds no parent; Curator makes it, and that request is not the engine's own); and the read that
        // sets the watch vouching for the hold, sent on the acquiring thread as the hold starts.
        assertThat(first.getInt("requests")).isIn(3, 5);
        // Right behind the waiter's node, of its own client: the create goes alone, its reply says what to watch, and
        // the deadline, already passed, ends it (OwnPredecessorTest).
        assertThat(tried.getInt("requests")).as("create, delete").isEqualTo(2);
        assertThat(waited.getInt("requests")).as("create, listing, watch").isGreaterThanOrEqualTo(3);
        assertThat(waited.getBoolean("localPass")).isFalse();
        // The waiter was queued before waiterQueued, and could not hold before the holder began to release.
        assertThat(waited.getDuration().toNanos())
                .isGreaterThanOrEqualTo(holderReleasing - waiterQueued)
                .isLessThanOrEqualTo(waiterDone - waiterStarted);

        List<RecordedEvent> holds = ofPath(events, "dev.zklock.Hold", path);
        assertThat(holds).extracting(e -> e.getLong("fencingToken")).containsExactly(holderToken, waiterToken);
        assertThat(holds.get(0).getDuration().toNanos()).isGreaterThanOrEqualTo(holderHeldAtLeast);
        assertThat(holds).extracting(e -> e.getString("state")).containsOnly("HELD");
        assertThat(holds.get(1).getStartTime())
                .isAfterOrEqualTo(holds.get(0).getStartTime().plus(holds.get(0).getDuration()));
    }

    /** A thread of the same lock object gets the cohort's node passed to it: no request, a local pass, the next token. */
    @Test
    void localHandOff_recordsThePassWithNoRequestAndTheNextToken() throws Exception {
        String path = zk.path("cohort");
        ZkReentrantLock lock =
                ZkReentrantLock.builder(zk.newClient(), path).localHandOff().build();
        CountDownLatch letGo = new CountDownLatch(1);
        List<RecordedEvent> events;
        long firstToken;
        long passedToken;
        try (Recording recording = zklockRecording();
                LockActor first = LockActor.start("first");
                LockActor second = LockActor.start("second")) {
            recording.start();
            CompletableFuture<Long> held = first.submit(() -> {
                lock.acquire();
                long token = lock.fencingToken();
                letGo.await();
                lock.release();
                return token;
            });
            await().until(() -> lock.getParticipantNodes().size() == 1);
            CompletableFuture<Long> passed = second.submit(() -> {
                lock.acquire();
                long token = lock.fencingToken();
                lock.release();
                return token;
            });
            await().until(() -> lock.core.cohort().waitingCount() == 1);
            letGo.countDown();
            firstToken = held.get(10, TimeUnit.SECONDS);
            passedToken = passed.get(10, TimeUnit.SECONDS);
            recording.stop();
            events = read(recording);
        }

        List<RecordedEvent> acquisitions = ofPath(events, "dev.zklock.Acquisition", path);
        assertThat(acquisitions)
                .extracting(e -> e.getThread().getJavaName(), e -> e.getBoolean("localPass"))
                .containsExactly(tuple("lock-actor-first", false), tuple("lock-actor-second", true));
        assertThat(acquisitions.get(0).getInt("requests"))
                .as("the first took the node: a create and a listing at least")
                .isGreaterThanOrEqualTo(2);
        assertThat(passedToken).isEqualTo(firstToken + 1);
        assertThat(ofPath(events, "dev.zklock.Hold", path))
                .extracting(e -> e.getLong("fencingToken"), e -> e.getBoolean("localPass"))
                .containsExactly(tuple(firstToken, false), tuple(passedToken, true));
    }

    /** An async acquire: its steps' requests are counted on the threads that send them, its hold ends at its close. */
    @Test
    void acquireAsync_recordsTheRequestsOfItsStepsAndItsHold() throws Exception {
        String path = zk.path("async");
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), path);
        List<RecordedEvent> events;
        long token;
        try (Recording recording = zklockRecording()) {
            recording.start();
            try (LockHold hold = lock.acquireAsync(Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS)) {
                token = hold.fencingToken();
            }
            recording.stop();
            events = read(recording);
        }

        assertThat(ofPath(events, "dev.zklock.Acquisition", path))
                .singleElement()
                .satisfies(acquisition -> {
                    assertThat(acquisition.getString("outcome")).isEqualTo("GRANTED");
                    assertThat(acquisition.getInt("requests"))
                            .as("a create and a listing at least")
                            .isGreaterThanOrEqualTo(2);
                });
        assertThat(ofPath(events, "dev.zklock.Hold", path))
                .extracting(e -> e.getLong("fencingToken"))
                .containsExactly(token);
    }

    /** A dropped connection, then an expired session: each change of the hold, with the event that caused it. */
    @Test
    void connectionLossAndSessionExpiry_recordEachStateChangeWithItsCause() throws Exception {
        String path = zk.path("lock");
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, path);
        List<LockState> seen = new CopyOnWriteArrayList<>();
        lock.addStateListener(event -> seen.add(event.state()));
        List<RecordedEvent> events;
        long token;
        try (Recording recording = zklockRecording()) {
            recording.start();
            lock.acquire();
            token = lock.fencingToken();
            zk.dropConnection(client);
            await().until(() -> seen.contains(LockState.HELD));
            zk.expireSession(client);
            await().until(() -> seen.contains(LockState.LOST));
            lock.release();
            recording.stop();
            events = read(recording);
        }

        List<RecordedEvent> changes = ofPath(events, "dev.zklock.HoldStateChange", path);
        // The expiry may reach the client as a disconnect first (SUSPENDED), then as the session's end (LOST).
        assertThat(changes)
                .extracting(e -> e.getString("previous"), e -> e.getString("state"), e -> e.getString("cause"))
                .startsWith(tuple("HELD", "IN_DOUBT", "SUSPENDED"), tuple("IN_DOUBT", "HELD", "RECONNECTED"))
                .endsWith(tuple(changes.size() == 3 ? "HELD" : "IN_DOUBT", "LOST", "LOST"))
                .hasSizeBetween(3, 4);
        assertThat(changes).extracting(e -> e.getLong("fencingToken")).containsOnly(token);
        assertThat(ofPath(events, "dev.zklock.Hold", path))
                .extracting(e -> e.getLong("fencingToken"), e -> e.getString("state"))
                .containsExactly(tuple(token, "LOST"));
    }

    private static RecordedEvent onThread(List<RecordedEvent> events, String thread) {
        return events.stream()
                .filter(e -> e.getThread().getJavaName().equals(thread))
                .findFirst()
                .orElseThrow();
    }

    private static Recording zklockRecording() {
        Recording recording = new Recording();
        recording.enable("dev.zklock.Acquisition").withThreshold(Duration.ZERO); // every one, the shortest too
        recording.enable("dev.zklock.Hold").withThreshold(Duration.ZERO);
        recording.enable("dev.zklock.HoldStateChange");
        return recording;
    }

    private List<RecordedEvent> read(Recording recording) throws Exception {
        Path file = Files.createTempFile(dir, "zklock", ".jfr");
        recording.dump(file);
        return RecordingFile.readAllEvents(file);
    }

    /** The events of {@code type} on {@code lockPath}, in the order they began. */
    private static List<RecordedEvent> ofPath(List<RecordedEvent> events, String type, String lockPath) {
        return events.stream()
                .filter(e -> e.getEventType().getName().equals(type))
                .filter(e -> lockPath.equals(e.getString("lockPath")))
                .sorted((a, b) -> a.getStartTime().compareTo(b.getStartTime()))
                .toList();
    }
}
