package dev.zklock.recipes.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDecision;
import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockQueueView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link LockDriver} must keep, as a JUnit 5 suite: extend it, return the driver, and (for drivers
 * that mix node kinds, such as readers and writers) say how nodes are named.
 *
 * <pre>{@code
 * final class MyDriverContractTest extends LockDriverContract {
 *     @Override
 *     protected LockDriver driver() {
 *         return new MyDriver();
 *     }
 * }
 * }</pre>
 *
 * <p>The suite checks, over many random queues drawn from a fixed seed: the sort orders by sequence and leaves its
 * input alone; the first node holds; decisions are deterministic, depend only on nodes ranked before ours, never watch
 * a node that is not ranked before ours, and are monotone (removing earlier nodes never takes the lock away); and the
 * driver gives the same answers from many threads at once. No ZooKeeper server is needed.
 */
public abstract class LockDriverContract {
    private static final long SEED = 20261122L;
    private static final int QUEUES = 300;
    private static final String LOCK_PATH = "/contract/lock";

    /**
     * Returns the driver under test.
     *
     * @return the driver; the suite may call this once per test
     */
    protected abstract LockDriver driver();

    /**
     * Returns the name of a node with the given sequence. The default names exclusive lock nodes as Curator does;
     * drivers that tell kinds of node apart draw the kind from {@code random}.
     *
     * @param sequence the sequence number ZooKeeper would append
     * @param random the source of randomness for this queue
     * @return a child name ending in the 10-digit sequence
     */
    protected String nodeName(int sequence, Random random) {
        return "_c_" + new UUID(random.nextLong(), random.nextLong()) + "-lock-" + String.format("%010d", sequence);
    }

    @Test
    void sort_anyInputOrder_ordersBySequence() {
        Random random = new Random(SEED);
        for (int i = 0; i < QUEUES; i++) {
            List<String> queue = randomQueue(random);
            List<String> shuffled = new ArrayList<>(queue);
            Collections.shuffle(shuffled, random);
            assertThat(driver().sort(shuffled)).as("sorted %s", shuffled).containsExactlyElementsOf(queue);
        }
    }

    @Test
    void sort_givenAList_leavesItUnchanged() {
        List<String> input = new ArrayList<>(randomQueue(new Random(SEED)));
        Collections.reverse(input);
        List<String> copy = List.copyOf(input);
        driver().sort(input);
        assertThat(input).isEqualTo(copy);
    }

    @Test
    void decide_firstNode_holds() {
        Random random = new Random(SEED);
        for (int i = 0; i < QUEUES; i++) {
            List<String> queue = randomQueue(random);
            assertThat(decide(queue, queue.get(0)).holdsLock())
                    .as("first node of %s", queue)
                    .isTrue();
        }
    }

    @Test
    void decide_sameViewTwice_sameDecision() {
        forEveryPosition((queue, ours) -> assertThat(decide(queue, ours)).isEqualTo(decide(queue, ours)));
    }

    @Test
    void decide_whenWaiting_watchesANodeRankedBeforeOurs() {
        forEveryPosition((queue, ours) -> {
            LockDecision decision = decide(queue, ours);
            if (!decision.holdsLock()) {
                assertThat(queue.subList(0, queue.indexOf(ours)))
                        .as("nodes before %s in %s", ours, queue)
                        .contains(decision.nodeToWatch());
            }
        });
    }

    @Test
    void decide_nodesAfterOurs_changeNothing() {
        forEveryPosition((queue, ours) -> {
            List<String> upToOurs = queue.subList(0, queue.indexOf(ours) + 1);
            assertThat(decide(upToOurs, ours)).as("%s in %s", ours, queue).isEqualTo(decide(queue, ours));
        });
    }

    @Test
    void decide_removingEarlierNodes_neverLosesTheLock() {
        Random random = new Random(SEED + 1);
        forEveryPosition((queue, ours) -> {
            if (!decide(queue, ours).holdsLock()) {
                return;
            }
            List<String> fewer = new ArrayList<>(queue);
            fewer.removeIf(
                    node -> !node.equals(ours) && queue.indexOf(node) < queue.indexOf(ours) && random.nextBoolean());
            assertThat(decide(fewer, ours).holdsLock())
                    .as("%s holds in %s but not in %s", ours, queue, fewer)
                    .isTrue();
        });
    }

    @Test
    void decide_whenOnlyTheWatchedNodeGoes_eitherHoldsOrWatchesAnotherEarlierNode() {
        forEveryPosition((queue, ours) -> {
            LockDecision decision = decide(queue, ours);
            if (decision.holdsLock()) {
                return;
            }
            List<String> without = new ArrayList<>(queue);
            without.remove(decision.nodeToWatch());
            LockDecision next = decide(without, ours);
            if (!next.holdsLock()) {
                assertThat(without.subList(0, without.indexOf(ours))).contains(next.nodeToWatch());
            }
        });
    }

    @Test
    void decide_fromManyThreads_givesTheSameAnswers() throws Exception {
        LockDriver driver = driver();
        List<String> queue = randomQueue(new Random(SEED));
        List<LockDecision> expected =
                queue.stream().map(ours -> decide(queue, ours)).toList();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<List<LockDecision>>> answers = IntStream.range(0, 8)
                    .mapToObj(i -> CompletableFuture.supplyAsync(
                            () -> queue.stream()
                                    .map(ours -> driver.decide(LockQueueView.of(LOCK_PATH, queue, ours)))
                                    .toList(),
                            pool))
                    .toList();
            for (CompletableFuture<List<LockDecision>> answer : answers) {
                assertThat(answer.get()).isEqualTo(expected);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private LockDecision decide(List<String> sortedQueue, String ours) {
        LockDecision decision = driver().decide(LockQueueView.of(LOCK_PATH, sortedQueue, ours));
        assertThat(decision).as("decision for %s in %s", ours, sortedQueue).isNotNull();
        return decision;
    }

    private void forEveryPosition(PositionCheck check) {
        Random random = new Random(SEED);
        for (int i = 0; i < QUEUES; i++) {
            List<String> queue = randomQueue(random);
            for (String ours : queue) {
                check.accept(queue, ours);
            }
        }
    }

    /** Returns a queue in sorted order: 1 to 12 nodes with growing, not always consecutive, sequences. */
    private List<String> randomQueue(Random random) {
        int size = 1 + random.nextInt(12);
        int sequence = random.nextInt(1000);
        List<String> queue = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            sequence += 1 + random.nextInt(3);
            queue.add(nodeName(sequence, random));
        }
        return queue;
    }

    @FunctionalInterface
    private interface PositionCheck {
        void accept(List<String> queue, String ours);
    }
}
