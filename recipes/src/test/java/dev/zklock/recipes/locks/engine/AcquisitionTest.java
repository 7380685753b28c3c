package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.ZkLockException;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The outcome tables of one acquisition, as plain unit tests: events in, commands out, no ZooKeeper (the client is
 * never started; the queue only names paths). The ZooKeeper suites in {@code recipes-test} run the same machine for
 * real, through both runners.
 */
final class AcquisitionTest {
    private static final long SESSION = 0x1234L;

    private final CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
    private final LockPath exclusive = new LockPath(client, "/locks/a", "lock-", LockDriver.exclusive(), null);

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void start_createsOurNodeUnderAFreshPrefix() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);

        Command.Create create = (Command.Create) acquisition.start();

        assertThat(create.prefix()).startsWith("_c_").endsWith("-lock-");
        assertThat(create.alongsideSequence()).isNull();
    }

    @Test
    void listed_whenOurNodeIsFirst_isGrantedFromTheFront() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);

        Command command = acquisition.on(listed(ours.name(), "_c_x-lock-0000000009"));

        assertThat(command).isEqualTo(new Command.Granted(List.of(ours), List.of(true)));
    }

    @Test
    void woken_whenTheOnlyNodeAheadGoes_isGrantedWithoutAListing() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);

        assertThat(acquisition.on(listed("_c_x-lock-0000000004", ours.name())))
                .satisfies(watches(0, "_c_x-lock-0000000004"));
        assertThat(acquisition.on(new Event.WatchSet())).isEqualTo(new Command.Await());
        Command command = acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED, true));

        assertThat(command).isEqualTo(new Command.Granted(List.of(ours), List.of(true)));
    }

    /**
     * Note 7: where the news ahead could grant with no listing, the watch asks the runner to vouch for our own node;
     * news that comes unvouched lists first, and our own node found gone enters again. Forbidden: a grant on the news
     * ahead alone (a waiter whose node a stranger deleted held beside the next session: StrangerDeleteTest).
     */
    @Test
    void watch_whenTheNewsAheadCouldGrant_asksForOurOwnNodeToBeVouchedFor() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);

        Command.Watch watch = (Command.Watch) acquisition.on(listed("_c_x-lock-0000000004", ours.name()));

        assertThat(watch.vouch()).isTrue();
    }

    @Test
    void watch_behindSeveralNodes_asksForAVoucherForAGrantFromTheFront() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);

        Command.Watch watch =
                (Command.Watch) acquisition.on(listed("_c_x-lock-0000000003", "_c_y-lock-0000000004", ours.name()));

        assertThat(watch.vouch()).isTrue(); // released from the front here, it grants without a listing
        assertThat(watch.name()).isEqualTo("_c_y-lock-0000000004");
    }

    @Test
    void woken_whenTheOnlyNodeAheadGoesUnvouched_listsBeforeItHolds() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);
        acquisition.on(listed("_c_x-lock-0000000004", ours.name()));
        acquisition.on(new Event.WatchSet());

        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED, false)))
                .isEqualTo(new Command.ListQueue(0));
        assertThat(acquisition.on(listed(ours.name()))).isEqualTo(new Command.Granted(List.of(ours), List.of(true)));
    }

    @Test
    void watchedGone_unvouched_listsBeforeItHolds() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);
        acquisition.on(listed("_c_x-lock-0000000004", ours.name()));

        assertThat(acquisition.on(new Event.WatchedGone(true, false))).isEqualTo(new Command.ListQueue(0));
    }

    @Test
    void ownGone_whileWaiting_deletesWhatIsLeftOfOurPlaceAndEntersAgain() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);
        acquisition.on(listed("_c_x-lock-0000000004", ours.name()));
        acquisition.on(new Event.WatchSet());

        assertThat(acquisition.on(new Event.OwnGone())).isEqualTo(new Command.Delete(List.of(ours)));
        Command.Create again = (Command.Create) acquisition.on(new Event.Deleted());
        assertThat(ours.name()).doesNotStartWith(again.prefix());
    }

    @Test
    void ownGone_whileTheWatchIsBeingSet_deletesWhatIsLeftOfOurPlaceAndEntersAgain() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);
        acquisition.on(listed("_c_x-lock-0000000004", ours.name()));

        assertThat(acquisition.on(new Event.OwnGone())).isEqualTo(new Command.Delete(List.of(ours)));
    }

    @Test
    void woken_whenANodeAheadGoesAndOthersRemain_listsOnce() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = waitBehind(acquisition, "_c_x-lock-0000000003", "_c_y-lock-0000000004");

        Command command = acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED, true));

        assertThat(command).isEqualTo(new Command.ListQueue(0));
        assertThat(acquisition.on(listed("_c_x-lock-0000000003", ours.name())))
                .satisfies(watches(0, "_c_x-lock-0000000003"));
    }

    @Test
    void woken_whenTheWatchedNodeHeldFromTheFrontInThisProcess_isGrantedWithoutAListing() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = waitBehind(acquisition, "_c_x-lock-0000000003", "_c_y-lock-0000000004");

        Command command = acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED_FROM_FRONT, true));

        assertThat(command).isEqualTo(new Command.Granted(List.of(ours), List.of(true)));
    }

    @Test
    void woken_whenTheWriteDriverWatchesAWriter_listsEvenIfItWasTheOnlyNodeAhead() {
        LockPath writes = new LockPath(client, "/locks/rw", NodeNames.WRITE_LOCK_NAME, LockDriver.write(), null);
        Acquisition acquisition = new Acquisition(List.of(writes), null);
        Command.Create create = (Command.Create) acquisition.start();
        LockNode ours = node(writes, create.prefix() + "0000000005");
        acquisition.on(new Event.Created(SESSION, List.of(ours)));
        acquisition.on(listed("_c_x-__WRIT__0000000004", ours.name()));
        acquisition.on(new Event.WatchSet());

        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED, true)))
                .isEqualTo(new Command.ListQueue(0));
    }

    /**
     * A reader that waited only for a writer holds once the writer goes, but not from the front: the writer may have
     * downgraded after our listing, with a read node that carries its sequence and ranks before ours. Counted from the
     * front, our release would let a writer of this process behind us skip that read node and hold beside it
     * (LockDriverQueueModelTest).
     */
    @Test
    void woken_whenAReaderWaitedOnlyForAWriter_isGrantedButNotFromTheFront() {
        LockPath reads = new LockPath(client, "/locks/rw", NodeNames.READ_LOCK_NAME, LockDriver.read(), null);
        Acquisition acquisition = new Acquisition(List.of(reads), null);
        LockNode ours = enter(acquisition, reads, 5);
        assertThat(acquisition.on(listed("_c_x-__WRIT__0000000004", ours.name())))
                .satisfies(watches(0, "_c_x-__WRIT__0000000004"));
        acquisition.on(new Event.WatchSet());

        Command command = acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED_FROM_FRONT, true));

        assertThat(command).isEqualTo(new Command.Granted(List.of(ours), List.of(false)));
    }

    @Test
    void woken_whenTheDataChanged_watchesTheSameNodeAgain_andWhenTheSessionEnded_lists() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = waitBehind(acquisition, "_c_x-lock-0000000004");

        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.CHANGED)))
                .satisfies(watches(0, "_c_x-lock-0000000004"));
        acquisition.on(new Event.WatchSet());
        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.SESSION_ENDED)))
                .isEqualTo(new Command.ListQueue(0));
    }

    @Test
    void deadlinePassed_whileARequestIsInFlight_finishesTheTry_andHoldsAFreeLock() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        Command.Create create = (Command.Create) acquisition.start();

        assertThat(acquisition.on(new Event.DeadlinePassed())).isEqualTo(new Command.Await());
        LockNode ours = node(exclusive, create.prefix() + "0000000001");
        assertThat(acquisition.on(new Event.Created(SESSION, List.of(ours)))).isEqualTo(new Command.Await());

        assertThat(acquisition.on(listed(ours.name()))).isEqualTo(new Command.Granted(List.of(ours), List.of(true)));
    }

    @Test
    void deadlinePassed_whenTheTryWouldWait_givesUpAndDeletesOurNode() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enter(acquisition, 5);
        acquisition.on(new Event.DeadlinePassed());

        Command command = acquisition.on(listed("_c_x-lock-0000000004", ours.name()));

        assertThat(command).isEqualTo(new Command.GiveUp(List.of(ours), null, null));
    }

    @Test
    void deadlinePassed_whileWaitingOnTheWatch_givesUp() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = waitBehind(acquisition, "_c_x-lock-0000000004");

        assertThat(acquisition.on(new Event.DeadlinePassed())).isEqualTo(new Command.GiveUp(List.of(ours), null, null));
        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED, true)))
                .isEqualTo(new Command.Await());
    }

    /**
     * Outcomes of a give-up while the create is on its way. Acceptable: the late reply's node deleted, or, if the
     * reply is lost, its prefix swept for. Forbidden: a late node kept, or cleaned up twice.
     */
    @Test
    void createReply_afterTheEnd_isAnsweredWithItsCleanupOnce() {
        Acquisition made = new Acquisition(List.of(exclusive), null);
        Command.Create create = (Command.Create) made.start();
        assertThat(made.on(new Event.TimedOut())).isEqualTo(new Command.GiveUp(List.of(), null, null));
        LockNode late = node(exclusive, create.prefix() + "0000000007");

        assertThat(made.on(new Event.Created(SESSION, List.of(late))))
                .isEqualTo(new Command.CleanUp(List.of(late), null));
        assertThat(made.on(listed(late.name()))).isEqualTo(new Command.Await());

        Acquisition lost = new Acquisition(List.of(exclusive), null);
        Command.Create lostCreate = (Command.Create) lost.start();
        lost.abandon(null);
        assertThat(lost.on(new Event.Failed(Code.CONNECTIONLOSS)))
                .isEqualTo(new Command.CleanUp(List.of(), lostCreate.prefix()));
        assertThat(lost.on(new Event.Failed(Code.CONNECTIONLOSS))).isEqualTo(new Command.Await());
    }

    @Test
    void createReplyLost_findsOurNodeByItsPrefixOnTheSameSession() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        Command.Create create = (Command.Create) acquisition.start();
        String ours = create.prefix() + "0000000005";

        assertThat(acquisition.on(new Event.Failed(Code.CONNECTIONLOSS)))
                .isEqualTo(new Command.Recover(create.prefix()));
        assertThat(acquisition.on(new Event.RecoveryListed(true, List.of(List.of("_c_x-lock-0000000004", ours)))))
                .isEqualTo(new Command.CheckOwner(0, ours));
        Command command = acquisition.on(new Event.OwnerChecked(true, SESSION, 77));

        assertThat(command).satisfies(watches(0, "_c_x-lock-0000000004"));
        acquisition.on(new Event.WatchSet());
        Command.Granted granted = (Command.Granted) acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED, true));
        assertThat(granted.nodes()).singleElement().satisfies(node -> {
            assertThat(node.name()).isEqualTo(ours);
            assertThat(node.czxid()).isEqualTo(77);
            assertThat(node.sessionId()).isEqualTo(SESSION);
        });
    }

    @Test
    void createReplyLost_whenNoNodeBearsOurPrefix_createsAgain_andOnAnotherSessionUnderAFreshPrefix() {
        Acquisition absent = new Acquisition(List.of(exclusive), null);
        Command.Create first = (Command.Create) absent.start();
        absent.on(new Event.Failed(Code.CONNECTIONLOSS));
        assertThat(absent.on(new Event.RecoveryListed(true, List.of(List.of("_c_x-lock-0000000004")))))
                .isEqualTo(new Command.Create(first.prefix(), null));

        Acquisition moved = new Acquisition(List.of(exclusive), null);
        Command.Create before = (Command.Create) moved.start();
        moved.on(new Event.Failed(Code.CONNECTIONLOSS));
        Command.Create after = (Command.Create) moved.on(new Event.RecoveryListed(false, List.of()));
        assertThat(after.prefix()).isNotEqualTo(before.prefix());
    }

    @Test
    void createReplyLost_whenTheFoundNodeIsNotOurs_createsUnderAFreshPrefix() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        Command.Create create = (Command.Create) acquisition.start();
        acquisition.on(new Event.Failed(Code.CONNECTIONLOSS));
        acquisition.on(new Event.RecoveryListed(true, List.of(List.of(create.prefix() + "0000000003"))));

        Command.Create again = (Command.Create) acquisition.on(new Event.OwnerChecked(false, SESSION, 0));

        assertThat(again.prefix()).isNotEqualTo(create.prefix());
    }

    @Test
    void createReplyLost_whenAStrangerDeletedSomeOfOurNodes_deletesTheRestAndEntersAgainUnderAFreshPrefix() {
        LockPath other = new LockPath(client, "/locks/b", "lock-", LockDriver.exclusive(), null);
        Acquisition acquisition = new Acquisition(List.of(exclusive, other), null);
        Command.Create create = (Command.Create) acquisition.start();
        String left = create.prefix() + "0000000005";
        acquisition.on(new Event.Failed(Code.CONNECTIONLOSS));

        // One read of both paths after the create's one transaction: our node in /locks/a was deleted since.
        Command.Delete delete =
                (Command.Delete) acquisition.on(new Event.RecoveryListed(true, List.of(List.of(), List.of(left))));

        assertThat(delete.nodes()).singleElement().satisfies(node -> {
            assertThat(node.name()).isEqualTo(left);
            assertThat(node.path()).isEqualTo("/locks/b/" + left);
        });
        Command.Create again = (Command.Create) acquisition.on(new Event.Deleted());
        assertThat(again.prefix()).isNotEqualTo(create.prefix());
    }

    @Test
    void createReplyLost_whenTheNodeCheckedIsDeletedBeforeItsCheck_deletesTheRestAndEntersAgain() {
        LockPath other = new LockPath(client, "/locks/b", "lock-", LockDriver.exclusive(), null);
        Acquisition acquisition = new Acquisition(List.of(exclusive, other), null);
        Command.Create create = (Command.Create) acquisition.start();
        String first = create.prefix() + "0000000006";
        String second = create.prefix() + "0000000001";
        acquisition.on(new Event.Failed(Code.CONNECTIONLOSS));
        assertThat(acquisition.on(new Event.RecoveryListed(true, List.of(List.of(first), List.of(second)))))
                .isEqualTo(new Command.CheckOwner(0, first));

        // A stranger deleted the first between the listing and its check: the check finds no node.
        Command.Delete delete = (Command.Delete) acquisition.on(new Event.OwnerChecked(false, SESSION, 0));

        assertThat(delete.nodes()).singleElement().satisfies(node -> assertThat(node.path())
                .isEqualTo("/locks/b/" + second));
        Command.Create again = (Command.Create) acquisition.on(new Event.Deleted());
        assertThat(again.prefix()).isNotEqualTo(create.prefix());
    }

    @Test
    void timedOut_whileRecovering_givesUpAndSweepsForTheLostCreate() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        Command.Create create = (Command.Create) acquisition.start();
        acquisition.on(new Event.Failed(Code.CONNECTIONLOSS));

        assertThat(acquisition.on(new Event.TimedOut()))
                .isEqualTo(new Command.GiveUp(List.of(), create.prefix(), null));
    }

    @Test
    void listed_withoutOurNode_deletesOurPlaceAndEntersAgainAtTheBack() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = waitBehind(acquisition, "_c_x-lock-0000000004");
        acquisition.on(new Event.Woken(NodeWatcher.Wake.SESSION_ENDED));

        assertThat(acquisition.on(listed("_c_x-lock-0000000004"))).isEqualTo(new Command.Delete(List.of(ours)));
        Command.Create again = (Command.Create) acquisition.on(new Event.Deleted());
        assertThat(ours.name()).doesNotStartWith(again.prefix());
    }

    @Test
    void createFailed_whenTheLockPathIsMissing_makesItThenCreatesAgain() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        Command.Create create = (Command.Create) acquisition.start();

        assertThat(acquisition.on(new Event.Failed(Code.NONODE))).isEqualTo(new Command.MakeParents());
        assertThat(acquisition.on(new Event.ParentsMade())).isEqualTo(create);
    }

    @Test
    void createFailed_whenZooKeeperRefuses_givesUpWithAnErrorNamingTheLockPath() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        acquisition.start();

        Command.GiveUp giveUp = (Command.GiveUp) acquisition.on(new Event.Failed(Code.NOAUTH));

        assertThat(giveUp.nodes()).isEmpty();
        assertThat(giveUp.failure())
                .isInstanceOf(ZkLockException.class)
                .hasMessageContaining("/locks/a")
                .hasMessageContaining("NOAUTH");
    }

    @Test
    void abandon_whileWaiting_deletesOurNode_andAfterTheEnd_doesNothing() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = waitBehind(acquisition, "_c_x-lock-0000000004");

        assertThat(acquisition.abandon(null)).isEqualTo(new Command.GiveUp(List.of(ours), null, null));
        assertThat(acquisition.abandon(null)).isEqualTo(new Command.Await());
    }

    @Test
    void severalQueues_areWaitedOnInTurn_andGrantedTogether() {
        LockPath other = new LockPath(client, "/locks/b", "lock-", LockDriver.exclusive(), null);
        Acquisition acquisition = new Acquisition(List.of(exclusive, other), null);
        Command.Create create = (Command.Create) acquisition.start();
        LockNode inA = node(exclusive, create.prefix() + "0000000002");
        LockNode inB = node(other, create.prefix() + "0000000008");
        acquisition.on(new Event.Created(SESSION, List.of(inA, inB)));

        Command command = acquisition.on(
                new Event.Listed(SESSION, List.of(List.of(inA.name()), List.of("_c_x-lock-0000000007", inB.name()))));

        assertThat(command).satisfies(watches(1, "_c_x-lock-0000000007"));
        acquisition.on(new Event.WatchSet());
        // a's node was last seen at the listing, before the wait on b: admission vouches for it first
        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED, true)))
                .isEqualTo(new Command.Granted(List.of(inA, inB), List.of(true, true), true));
    }

    @Test
    void severalQueues_whenOneListingFailed_listThatQueueWhenItsTurnComes() {
        LockPath other = new LockPath(client, "/locks/b", "lock-", LockDriver.exclusive(), null);
        Acquisition acquisition = new Acquisition(List.of(exclusive, other), null);
        Command.Create create = (Command.Create) acquisition.start();
        LockNode inA = node(exclusive, create.prefix() + "0000000002");
        LockNode inB = node(other, create.prefix() + "0000000008");
        acquisition.on(new Event.Created(SESSION, List.of(inA, inB)));
        List<List<String>> listings = new ArrayList<>();
        listings.add(List.of(inA.name()));
        listings.add(null);

        assertThat(acquisition.on(new Event.Listed(SESSION, listings))).isEqualTo(new Command.ListQueue(1));
        assertThat(acquisition.on(listed(inB.name())))
                .isEqualTo(new Command.Granted(List.of(inA, inB), List.of(true, true)));
    }

    @Test
    void alongside_holdsAtOnceBehindTheNodeItRanksWith() {
        LockPath reads = new LockPath(client, "/locks/rw", NodeNames.READ_LOCK_NAME, LockDriver.read(), null);
        Acquisition acquisition = new Acquisition(List.of(reads), new Acquisition.Beside("0000000004", SESSION));
        Command.Create create = (Command.Create) acquisition.start();
        assertThat(create.alongsideSequence()).isEqualTo("0000000004");
        LockNode ours = node(reads, create.prefix() + "0000000004");
        acquisition.on(new Event.Created(SESSION, List.of(ours)));

        Command command = acquisition.on(listed("_c_0-__WRIT__0000000004", ours.name())); // sorts before ours

        assertThat(command).isEqualTo(new Command.Granted(List.of(ours), List.of(false)));
    }

    /**
     * A downgrade whose create reply was lost while the session expired: the recovery runs on the new session. Allowed:
     * it gives up with IllegalStateException, its read node on the new session deleted. Forbidden: a read node beside
     * the write node's sequence on the new session, ranked ahead of the writers queued since the write node went with
     * the old one (found by the simulator).
     */
    @Test
    void alongside_onAnotherSessionThanItsWriteNode_givesUp() {
        LockPath reads = new LockPath(client, "/locks/rw", NodeNames.READ_LOCK_NAME, LockDriver.read(), null);
        Acquisition recovered = new Acquisition(List.of(reads), new Acquisition.Beside("0000000004", SESSION));
        Command.Create create = (Command.Create) recovered.start();
        recovered.on(new Event.Failed(Code.CONNECTIONLOSS));

        Command.GiveUp moved = (Command.GiveUp) recovered.on(new Event.RecoveryListed(false, List.of()));

        assertThat(moved.failure()).isInstanceOf(IllegalStateException.class).hasMessageContaining("/locks/rw");
        assertThat(moved.sweepPrefix()).isEqualTo(create.prefix());

        Acquisition listedElsewhere = new Acquisition(List.of(reads), new Acquisition.Beside("0000000004", SESSION));
        Command.Create again = (Command.Create) listedElsewhere.start();
        LockNode onNewSession = new LockNode(reads, again.prefix() + "0000000004", 9, SESSION + 1);
        listedElsewhere.on(new Event.Created(SESSION + 1, List.of(onNewSession)));
        Command.GiveUp elsewhere = (Command.GiveUp) listedElsewhere.on(
                new Event.Listed(SESSION + 1, List.of(List.of("_c_9-__WRIT__0000000007", onNewSession.name()))));
        assertThat(elsewhere.nodes()).containsExactly(onNewSession);
        assertThat(elsewhere.failure()).isInstanceOf(IllegalStateException.class);
    }

    /**
     * Behind a node of our own client, with nothing created between (its sequence is ours minus one), the create goes
     * alone: the driver decides on that node, and the waiter watches it without reading the queue. Its release from the
     * front grants with no request; a deletion not from the front (it gave up) says nothing of the nodes before it: one
     * listing.
     */
    @Test
    void createdAlone_rightBehindANodeOfOurClient_watchesItWithoutAListing() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enterAlone(acquisition, exclusive, "_c_own-lock-0000000004");

        assertThat(acquisition.on(new Event.WatchSet())).isEqualTo(new Command.Await());
        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED_FROM_FRONT, true)))
                .isEqualTo(new Command.Granted(List.of(ours), List.of(true)));
    }

    @Test
    void createdAlone_whenTheNodeOfOurClientAheadGaveUp_listsOnce() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enterAlone(acquisition, exclusive, "_c_own-lock-0000000004");
        acquisition.on(new Event.WatchSet());

        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED, true)))
                .isEqualTo(new Command.ListQueue(0));
        assertThat(acquisition.on(listed("_c_x-lock-0000000001", ours.name())))
                .satisfies(watches(0, "_c_x-lock-0000000001"));
    }

    @Test
    void createdAlone_withNoNodeOfOurClientRightBefore_lists() {
        Acquisition acquisition = new Acquisition(List.of(exclusive), null);
        LockNode ours = enterAlone(acquisition, exclusive, null);

        assertThat(acquisition.on(listed("_c_other-lock-0000000004", ours.name())))
                .satisfies(watches(0, "_c_other-lock-0000000004"));
    }

    /** A reader right behind a reader of its own client may hold: only the nodes before it tell, so the listing stays. */
    @Test
    void listsBehindCreate_aReaderBehindAReaderOfItsClient_keepsTheListing() {
        LockPath reads = new LockPath(client, "/locks/rw", NodeNames.READ_LOCK_NAME, LockDriver.read(), null);
        Acquisition acquisition = new Acquisition(List.of(reads), null);
        acquisition.start();

        assertThat(acquisition.listsBehindCreate("_c_own-__READ__0000000004")).isTrue();
        assertThat(acquisition.listsBehindCreate("_c_own-__WRIT__")).isFalse();
        assertThat(acquisition.listsBehindCreate(null)).isTrue();
    }

    /**
     * A reader right behind a writer of its own client waits for it with no listing; if the writer goes from the front,
     * the reader holds, but not from the front (the writer may have downgraded: a read node beside it, before ours).
     */
    @Test
    void createdAlone_aReaderRightBehindAWriterOfItsClient_holdsWhenItGoesButNotFromTheFront() {
        LockPath reads = new LockPath(client, "/locks/rw", NodeNames.READ_LOCK_NAME, LockDriver.read(), null);
        Acquisition acquisition = new Acquisition(List.of(reads), null);
        LockNode ours = enterAlone(acquisition, reads, "_c_own-__WRIT__0000000004");
        acquisition.on(new Event.WatchSet());

        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED_FROM_FRONT, true)))
                .isEqualTo(new Command.Granted(List.of(ours), List.of(false)));
    }

    /** A writer right behind a writer of its own client lists once it goes: a downgrade may have put a reader between. */
    @Test
    void createdAlone_aWriterRightBehindAWriterOfItsClient_listsWhenItGoes() {
        LockPath writes = new LockPath(client, "/locks/rw", NodeNames.WRITE_LOCK_NAME, LockDriver.write(), null);
        Acquisition acquisition = new Acquisition(List.of(writes), null);
        enterAlone(acquisition, writes, "_c_own-__WRIT__0000000004");
        acquisition.on(new Event.WatchSet());

        assertThat(acquisition.on(new Event.Woken(NodeWatcher.Wake.DELETED_FROM_FRONT, true)))
                .isEqualTo(new Command.ListQueue(0));
    }

    /** A multi-lock and a downgrade's read node always list behind their create. */
    @Test
    void listsBehindCreate_severalQueuesOrBesideAWriteNode_alwaysLists() {
        LockPath other = new LockPath(client, "/locks/b", "lock-", LockDriver.exclusive(), null);
        Acquisition multi = new Acquisition(List.of(exclusive, other), null);
        multi.start();
        Acquisition beside = new Acquisition(List.of(exclusive), new Acquisition.Beside("0000000004", SESSION));
        beside.start();

        assertThat(multi.listsBehindCreate("_c_own-lock-")).isTrue();
        assertThat(beside.listsBehindCreate("_c_own-lock-")).isTrue();
    }

    /**
     * Enters with sequence 5, the create sent alone (a node of our client was likely ahead); with {@code predecessor}
     * named by the reply, the machine watches it by the path string that node keeps (no copy), else it lists.
     */
    private LockNode enterAlone(Acquisition acquisition, LockPath queue, String predecessor) {
        Command.Create create = (Command.Create) acquisition.start();
        assertThat(acquisition.listsBehindCreate(predecessor != null ? predecessor : "_c_own-lock-"))
                .isFalse();
        LockNode ours = node(queue, create.prefix() + "0000000005");
        LockNode before = predecessor == null ? null : node(queue, predecessor);
        Command command = acquisition.on(new Event.Created(SESSION, List.of(ours), before));
        if (before == null) {
            assertThat(command).isEqualTo(new Command.ListQueue(0));
        } else {
            assertThat(command).satisfies(watches(0, predecessor));
            assertThat(((Command.Watch) command).path()).isSameAs(before.fixedPath());
        }
        return ours;
    }

    /** A watch on {@code name} of queue {@code queue}, vouched for or not. */
    private static java.util.function.Consumer<Command> watches(int queue, String name) {
        return command -> {
            assertThat(command).isInstanceOf(Command.Watch.class);
            Command.Watch watch = (Command.Watch) command;
            assertThat(watch.queue()).isEqualTo(queue);
            assertThat(watch.name()).isEqualTo(name);
        };
    }

    private LockNode enter(Acquisition acquisition, int sequence) {
        return enter(acquisition, exclusive, sequence);
    }

    private LockNode enter(Acquisition acquisition, LockPath queue, int sequence) {
        Command.Create create = (Command.Create) acquisition.start();
        LockNode ours = node(queue, create.prefix() + String.format("%010d", sequence));
        assertThat(acquisition.on(new Event.Created(SESSION, List.of(ours)))).isEqualTo(new Command.Await());
        return ours;
    }

    /** Enters with sequence 5 behind {@code ahead}, and sets the watch the driver asks for. */
    private LockNode waitBehind(Acquisition acquisition, String... ahead) {
        LockNode ours = enter(acquisition, 5);
        List<String> children = new ArrayList<>(List.of(ahead));
        children.add(ours.name());
        assertThat(acquisition.on(new Event.Listed(SESSION, List.of(children)))).isInstanceOf(Command.Watch.class);
        assertThat(acquisition.on(new Event.WatchSet())).isEqualTo(new Command.Await());
        return ours;
    }

    private static LockNode node(LockPath queue, String name) {
        return new LockNode(queue, name, 42, SESSION);
    }

    private static Event.Listed listed(String... children) {
        return new Event.Listed(SESSION, List.of(List.of(children)));
    }
}
