package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.ZkLockException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The outcome tables of the lease step of a semaphore acquire, as plain unit tests: events in, commands out, no
 * ZooKeeper (the client is never started). {@code ZkSemaphoreTest} and {@code SemaphoreInteropTest} run the same machine
 * for real.
 */
final class LeaseAcquisitionTest {
    private static final long SESSION = 0x1234L;

    private final CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
    private final LockPath leases = new LockPath(client, "/sem/leases", "lease-", LockDriver.exclusive(), null);
    private final AtomicInteger max = new AtomicInteger(2);

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void start_createsOneLeasePerQuantityWithTheListingBehind_watchedOnlyWhenAWaitIsExpected() {
        Command.CreateLeases plain =
                (Command.CreateLeases) new LeaseAcquisition(leases, SESSION, 2, max::get, false).start();
        Command.CreateLeases watched =
                (Command.CreateLeases) new LeaseAcquisition(leases, SESSION, 1, max::get, true).start();

        assertThat(plain.prefix()).startsWith("_c_").endsWith("-lease-");
        assertThat(plain.count()).isEqualTo(2);
        assertThat(plain.watch()).isFalse();
        assertThat(watched.watch()).isTrue();
    }

    @Test
    void listed_withFewEnoughNodesBeforeOurs_isGranted() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        List<LockNode> ours = enter(step, 7);

        Command command =
                step.on(listed(SESSION, "_c_a-lease-0000000003", ours.get(0).name()));

        assertThat(command).isEqualTo(new Command.Granted(ours, List.of(false)));
    }

    @Test
    void listed_withNodesAfterOurs_ignoresThem() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        List<LockNode> ours = enter(step, 7);

        Command command = step.on(listed(
                SESSION, "_c_a-lease-0000000003", ours.get(0).name(), "_c_b-lease-0000000008", "x-lease-0000000009"));

        assertThat(command).isEqualTo(new Command.Granted(ours, List.of(false)));
    }

    @Test
    void listed_withANodeWithoutASequence_countsIt() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        List<LockNode> ours = enter(step, 7);

        Command command = step.on(
                listed(SESSION, "_c_a-lease-0000000003", "stray", ours.get(0).name()));

        assertThat(command).isEqualTo(new Command.ListLeases(true));
    }

    /**
     * The session ends while the listing that sets the child watch is on its way: the runner's watcher hears of it at
     * once, before the listing answers. Allowed: the step starts over, its leases given back. Forbidden: an error (it
     * threw AssertionError, expecting WAITING only).
     */
    @Test
    void woken_whenTheSessionEndsWhileAWatchedListingIsOnItsWay_restarts() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        List<LockNode> ours = enter(step, 7);
        String[] full = {
            "_c_a-lease-0000000003", "_c_b-lease-0000000004", ours.get(0).name()
        };
        assertThat(step.on(listed(SESSION, full))).isEqualTo(new Command.ListLeases(true));

        Command command = step.on(new Event.Woken(NodeWatcher.Wake.SESSION_ENDED));

        assertThat(command).isEqualTo(new Command.Restart(ours, null));
        assertThat(step.on(listed(SESSION, full))).isEqualTo(new Command.Await()); // the listing, after the end
    }

    @Test
    void listed_tooManyWithoutAWatch_listsAgainWithOneThenWaits() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        List<LockNode> ours = enter(step, 7);
        String[] full = {
            "_c_a-lease-0000000003", "_c_b-lease-0000000004", ours.get(0).name()
        };

        assertThat(step.on(listed(SESSION, full))).isEqualTo(new Command.ListLeases(true));
        assertThat(step.on(listed(SESSION, full))).isEqualTo(new Command.Await());
        assertThat(step.phase()).isEqualTo(LeaseAcquisition.Phase.WAITING);
        assertThat(step.waited()).isTrue();
    }

    @Test
    void woken_whenOneDeletionIsEnough_listsWithoutAWatch_andWithOneWhenMoreAreNeeded() {
        LeaseAcquisition one = new LeaseAcquisition(leases, SESSION, 1, max::get, true);
        List<LockNode> ours = enter(one, 7);
        one.on(listed(
                SESSION,
                "_c_a-lease-0000000003",
                "_c_b-lease-0000000004",
                ours.get(0).name()));
        assertThat(one.on(new Event.Woken(NodeWatcher.Wake.CHANGED))).isEqualTo(new Command.ListLeases(false));
        assertThat(one.on(listed(SESSION, "_c_b-lease-0000000004", ours.get(0).name())))
                .isEqualTo(new Command.Granted(ours, List.of(false)));

        LeaseAcquisition two = new LeaseAcquisition(leases, SESSION, 2, max::get, true);
        List<LockNode> both = enter(two, 7, 8);
        two.on(listed(
                SESSION,
                "_c_a-lease-0000000003",
                "_c_b-lease-0000000004",
                both.get(0).name(),
                both.get(1).name()));
        assertThat(two.on(new Event.Woken(NodeWatcher.Wake.CHANGED))).isEqualTo(new Command.ListLeases(true));
    }

    @Test
    void woken_whenTheSessionEnded_restarts() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, true);
        List<LockNode> ours = enter(step, 7);
        step.on(listed(
                SESSION,
                "_c_a-lease-0000000003",
                "_c_b-lease-0000000004",
                ours.get(0).name()));

        Command command = step.on(new Event.Woken(NodeWatcher.Wake.SESSION_ENDED));

        assertThat(command).isEqualTo(new Command.Restart(ours, null));
    }

    @Test
    void listed_onAnotherSessionOrWithoutOurNode_restarts() {
        LeaseAcquisition other = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        List<LockNode> ours = enter(other, 7);
        assertThat(other.on(listed(SESSION + 1, ours.get(0).name()))).isEqualTo(new Command.Restart(ours, null));

        LeaseAcquisition gone = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        List<LockNode> deleted = enter(gone, 7);
        assertThat(gone.on(listed(SESSION, "_c_a-lease-0000000003"))).isEqualTo(new Command.Restart(deleted, null));
    }

    @Test
    void countChanged_whileWaiting_decidesAgainWithoutAListing() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, true);
        List<LockNode> ours = enter(step, 7);
        step.on(listed(
                SESSION,
                "_c_a-lease-0000000003",
                "_c_b-lease-0000000004",
                ours.get(0).name()));

        max.set(3);

        assertThat(step.on(new Event.CountChanged())).isEqualTo(new Command.Granted(ours, List.of(false)));
    }

    @Test
    void deadline_passedWhileWaiting_givesUpWithOurNodes_andWhileListing_waitsForTheListing() {
        LeaseAcquisition waiting = new LeaseAcquisition(leases, SESSION, 1, max::get, true);
        List<LockNode> ours = enter(waiting, 7);
        waiting.on(listed(
                SESSION,
                "_c_a-lease-0000000003",
                "_c_b-lease-0000000004",
                ours.get(0).name()));
        assertThat(waiting.on(new Event.DeadlinePassed())).isEqualTo(new Command.GiveUp(ours, null, null));

        LeaseAcquisition listing = new LeaseAcquisition(leases, SESSION, 1, max::get, true);
        List<LockNode> entering = enter(listing, 7);
        assertThat(listing.on(new Event.DeadlinePassed())).isEqualTo(new Command.Await());
        assertThat(listing.on(listed(
                        SESSION,
                        "_c_a-lease-0000000003",
                        "_c_b-lease-0000000004",
                        entering.get(0).name())))
                .isEqualTo(new Command.GiveUp(entering, null, null));
    }

    @Test
    void create_missingLeasesPath_makesItAndCreatesAgain() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        Command.CreateLeases create = (Command.CreateLeases) step.start();

        assertThat(step.on(new Event.Failed(Code.NONODE))).isEqualTo(new Command.MakeParents());
        assertThat(step.on(new Event.ParentsMade())).isEqualTo(create);
    }

    @Test
    void create_replyLost_recoversOurNodeByPrefixOnTheSameSessionOnly() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        Command.CreateLeases create = (Command.CreateLeases) step.start();
        String ours = create.prefix() + "0000000007";

        assertThat(step.on(new Event.Failed(Code.CONNECTIONLOSS))).isEqualTo(new Command.Recover(create.prefix()));
        assertThat(step.on(new Event.RecoveryListed(true, List.of(List.of("_c_a-lease-0000000003", ours)))))
                .isEqualTo(new Command.CheckOwner(0, ours));
        Command command = step.on(new Event.OwnerChecked(true, SESSION, 99));

        assertThat(command).isInstanceOf(Command.Granted.class);
        assertThat(((Command.Granted) command).nodes().get(0).name()).isEqualTo(ours);

        LeaseAcquisition ended = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        Command.CreateLeases lost = (Command.CreateLeases) ended.start();
        ended.on(new Event.Failed(Code.CONNECTIONLOSS));
        assertThat(ended.on(new Event.RecoveryListed(false, List.of())))
                .isEqualTo(new Command.Restart(List.of(), lost.prefix()));
    }

    /**
     * A child watch that fires while the step is not waiting (a lost create's recovery, here) changes nothing: the
     * listing on its way or due sees the change. The simulator found the step throwing here (seed 19,376 with views).
     */
    @Test
    void woken_whileRecoveringALostCreate_waitsForTheRecovery() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, true);
        Command.CreateLeases create = (Command.CreateLeases) step.start();
        String ours = create.prefix() + "0000000007";
        step.on(new Event.Failed(Code.CONNECTIONLOSS));
        step.on(new Event.RecoveryListed(true, List.of(List.of("_c_a-lease-0000000003", ours))));

        assertThat(step.on(new Event.Woken(NodeWatcher.Wake.CHANGED))).isEqualTo(new Command.Await());
        Command command = step.on(new Event.OwnerChecked(true, SESSION, 99));

        assertThat(command).isInstanceOf(Command.Granted.class);
        assertThat(((Command.Granted) command).nodes().get(0).name()).isEqualTo(ours);
    }

    @Test
    void create_replyLost_whenSomeOfOurLeasesWereDeleted_givesBackTheRestAndStartsOver() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 2, max::get, false);
        Command.CreateLeases create = (Command.CreateLeases) step.start();
        String left = create.prefix() + "0000000008";
        step.on(new Event.Failed(Code.CONNECTIONLOSS));

        Command command = step.on(new Event.RecoveryListed(true, List.of(List.of("_c_a-lease-0000000003", left))));

        assertThat(command).isInstanceOfSatisfying(Command.Restart.class, restart -> assertThat(restart.nodes())
                .singleElement()
                .satisfies(node -> assertThat(node.name()).isEqualTo(left)));
        assertThat(step.isOver()).isTrue();
    }

    @Test
    void create_failedOtherwise_givesUpWithTheFailure() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        step.start();

        Command command = step.on(new Event.Failed(Code.NOAUTH));

        assertThat(command).isInstanceOf(Command.GiveUp.class);
        assertThat(((Command.GiveUp) command).failure())
                .isInstanceOf(ZkLockException.class)
                .hasMessageContaining("/sem/leases")
                .hasMessageContaining("NOAUTH");
    }

    @Test
    void abandon_whileTheCreateIsInFlight_cleansUpItsLateReply() {
        LeaseAcquisition step = new LeaseAcquisition(leases, SESSION, 1, max::get, false);
        Command.CreateLeases create = (Command.CreateLeases) step.start();

        assertThat(step.abandon(null)).isEqualTo(new Command.GiveUp(List.of(), null, null));
        LockNode late = new LockNode(leases, create.prefix() + "0000000007", 1, SESSION);
        assertThat(step.on(new Event.Created(SESSION, List.of(late))))
                .isEqualTo(new Command.CleanUp(List.of(late), null));
    }

    /** Starts {@code step} and tells it that its nodes were made with {@code sequences}. */
    private List<LockNode> enter(LeaseAcquisition step, int... sequences) {
        Command.CreateLeases create = (Command.CreateLeases) step.start();
        List<LockNode> nodes = new ArrayList<>();
        for (int sequence : sequences) {
            nodes.add(new LockNode(leases, create.prefix() + String.format("%010d", sequence), 1, SESSION));
        }
        assertThat(step.on(new Event.Created(SESSION, nodes))).isEqualTo(new Command.Await());
        return nodes;
    }

    private static Event.Listed listed(long session, String... children) {
        return new Event.Listed(session, List.of(List.of(children)));
    }
}
