package dev.zklock.recipes.test;

import static dev.zklock.recipes.test.SafetyMonitor.Mode.EXCLUSIVE;
import static dev.zklock.recipes.test.SafetyMonitor.Mode.READ;
import static dev.zklock.recipes.test.SafetyMonitor.Mode.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.test.SafetyMonitor.Claim;
import dev.zklock.recipes.test.SafetyMonitor.Hold;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The monitor's bookkeeping, with planted violations; no ZooKeeper needed. */
@Timeout(10)
final class SafetyMonitorTest {
    private static final String PATH = "/locks/a";

    private final SafetyMonitor monitor = SafetyMonitor.create();

    @Test
    void report_ofAFreshMonitor_isClean() {
        SafetyReport report = monitor.report();

        assertThat(report.isClean()).isTrue();
        assertThat(report.holds()).isZero();
        assertThat(report.firstViolations()).isEmpty();
    }

    @Test
    void enter_exclusiveHoldsOneAfterTheOther_areClean() {
        monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1)).exit();
        monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 12, 2)).exit();
        monitor.enter("alice", new Claim("/locks/b", EXCLUSIVE, 11, 1)).exit();

        assertThat(monitor.report().isClean()).isTrue();
        assertThat(monitor.report().holds()).isEqualTo(3);
    }

    @Test
    void enter_whileAnotherOwnerHoldsExclusively_countsAnOverlapNamingBoth() {
        Hold alice = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1));

        monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 12, 2));

        SafetyReport report = monitor.report();
        assertThat(report.overlaps()).isEqualTo(1);
        assertThat(report.isClean()).isFalse();
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("overlap on " + PATH, "alice", "bob", "token 10", "token 12");
        alice.exit();
    }

    @Test
    void enter_leasesUpToTheirCount_areClean_andOneMoreIsAnOverlap() {
        Hold first = monitor.enter("alice", Claim.lease(PATH, 12, 1, 3));
        Hold second = monitor.enter("bob", Claim.lease(PATH, 10, 2, 3)); // leases may enter out of token order
        Hold third = monitor.enter("carol", Claim.lease(PATH, 14, 3, 3));
        assertThat(monitor.report().isClean()).isTrue();

        Hold fourth = monitor.enter("dave", Claim.lease(PATH, 16, 4, 3));

        SafetyReport report = monitor.report();
        assertThat(report.overlaps()).isEqualTo(1);
        assertThat(report.tokenRegressions()).isZero();
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("too many leases on " + PATH, "dave", "lease 4 of at most 3");
        List.of(first, second, third, fourth).forEach(Hold::exit);
    }

    @Test
    void enter_leaseBesideAnExclusiveHold_isAnOverlap() {
        Hold alice = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1));

        monitor.enter("bob", Claim.lease(PATH, 12, 2, 3)).exit();

        assertThat(monitor.report().overlaps()).isEqualTo(1);
        alice.exit();
    }

    @Test
    void enter_readersTogether_areNoOverlap() {
        Hold first = monitor.enter("alice", new Claim(PATH, READ, 10, 1));
        Hold second = monitor.enter("bob", new Claim(PATH, READ, 12, 2));
        first.exit();
        second.exit();

        assertThat(monitor.report().isClean()).isTrue();
    }

    @Test
    void enter_writeWhileReadsAreHeld_countsAnOverlapPerReader() {
        monitor.enter("reader-1", new Claim(PATH, READ, 10, 1));
        monitor.enter("reader-2", new Claim(PATH, READ, 11, 2));

        monitor.enter("writer", new Claim(PATH, WRITE, 12, 3));

        assertThat(monitor.report().overlaps()).isEqualTo(2);
    }

    @Test
    void enter_readBySameOwnerWhileItsWriteIsHeld_isADowngradeNotAnOverlap() {
        Hold write = monitor.enter("alice", new Claim(PATH, WRITE, 10, 1));
        Hold read = monitor.enter("alice", new Claim(PATH, READ, 11, 1));
        write.exit();
        read.exit();

        assertThat(monitor.report().isClean()).isTrue();
    }

    @Test
    void enter_besideAHolderWhoseSessionEnded_isAnExplainedOverlapNotAViolation() {
        Hold alice = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1));
        monitor.sessionEnded(1);
        monitor.sessionEndAnswered(1);

        Hold bob = monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 12, 2));

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as("%s", report).isTrue();
        assertThat(report.overlaps()).isZero();
        assertThat(report.explainedOverlaps()).isEqualTo(1);
        assertThat(report.lostHolds()).isEqualTo(1);
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains("overlap on " + PATH, "alice: its session 0x1 ended while it held", "bob", "token 12");
        assertThat(report.toString()).contains("explained overlaps 1 (longest ", "explained: overlap on " + PATH);
        alice.exit();
        bob.exit();
        Duration ended = monitor.report().longestExplainedOverlap(); // closed by the exits: no longer grows
        assertThat(monitor.report().longestExplainedOverlap()).isEqualTo(ended);
    }

    @Test
    void enter_onASessionWhoseEndIsInFlight_isEndedFromOutsideAndTheNextHolderBesideItExplained() {
        monitor.sessionEnded(1); // the expiry is asked for; the server may end the session after the grant
        Hold alice = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1));
        monitor.sessionEndAnswered(1);

        monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 12, 2)).exit();
        alice.exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as("%s", report).isTrue();
        assertThat(report.explainedOverlaps()).isEqualTo(1);
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains("alice: entered while the end of its session 0x1 was in flight", "bob");
        assertThat(report.lostHolds()).isEqualTo(1);
    }

    @Test
    void enter_afterTheHolderWhoseSessionEndedExited_isNoOverlap() {
        Hold alice = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1));
        monitor.sessionEnded(1);
        monitor.sessionEndAnswered(1);
        alice.exit();

        monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 12, 2)).exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isTrue();
        assertThat(report.explainedOverlaps()).isZero();
        assertThat(report.lostHolds()).isEqualTo(1);
    }

    @Test
    void enter_onASessionAlreadyEndedBesideAnotherSessionsHold_isAViolation() {
        Hold bob = monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 12, 2));
        monitor.sessionEnded(1);
        monitor.sessionEndAnswered(1);

        monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 14, 1));

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isFalse();
        assertThat(report.overlaps()).isEqualTo(1);
        assertThat(report.explainedOverlaps()).isZero();
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("overlap on " + PATH, "alice entered after its session 0x1 ended", "bob");
        bob.exit();
    }

    @Test
    void enter_besideAHoldEnteredOnAnEndedSession_isAViolationNamingTheEarlierHold() {
        monitor.sessionEnded(1);
        monitor.sessionEndAnswered(1);
        Hold alice = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1));

        monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 12, 2));

        assertThat(monitor.report().overlaps()).isEqualTo(1);
        assertThat(monitor.report().firstViolations())
                .singleElement()
                .asString()
                .contains("alice entered after its session 0x1 ended");
        alice.exit();
    }

    @Test
    void enter_readWhileAWriteOfALiveSessionIsHeld_isAViolationOfBothLive() {
        Hold writer = monitor.enter("writer", new Claim(PATH, WRITE, 10, 1));

        monitor.enter("reader", new Claim(PATH, READ, 12, 2)).exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isFalse();
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("overlap on " + PATH + " (both live)", "reader", "writer");
        writer.exit();
    }

    @Test
    void enter_leaseBeyondTheCountBesideALeaseWhoseSessionEnded_isExplained() {
        Hold alice = monitor.enter("alice", Claim.lease(PATH, 10, 1, 1));
        monitor.sessionEnded(1);
        monitor.sessionEndAnswered(1);

        Hold bob = monitor.enter("bob", Claim.lease(PATH, 12, 2, 1));

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isTrue();
        assertThat(report.explainedOverlaps()).isEqualTo(1);
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains("too many leases on " + PATH, "1 of them ended from outside");
        alice.exit();
        bob.exit();
    }

    @Test
    void enter_onASessionThatHadAlreadyEnded_isLostAndCheckedForNothing() {
        monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 12, 2)).exit();
        monitor.sessionEnded(1);
        monitor.sessionEndAnswered(1);

        monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1)).exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isTrue();
        assertThat(report.lostHolds()).isEqualTo(1);
        assertThat(monitor.liveClaims(PATH)).isEmpty();
    }

    @Test
    void enter_tokenSmallerThanAnEarlierHolds_countsARegression() {
        monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 12, 1)).exit();

        monitor.enter("bob", new Claim(PATH, EXCLUSIVE, 10, 2)).exit();

        SafetyReport report = monitor.report();
        assertThat(report.tokenRegressions()).isEqualTo(1);
        assertThat(report.overlaps()).isZero();
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("token regression on " + PATH, "bob", "token 10", "token 12");
    }

    @Test
    void enter_nextPassOnTheNodeBefore_isNoRegressionAndCountsAsAHoldOnTheSameNode() {
        Hold first = monitor.enter("t1", new Claim(PATH, EXCLUSIVE, token(12, 0), 1));
        first.exit();
        Hold passed = monitor.enter("t2", new Claim(PATH, EXCLUSIVE, token(12, 1), 1)); // a local pass of the node
        passed.exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isTrue();
        assertThat(report.tokenRegressions()).isZero();
        assertThat(report.sameNodeHolds()).isEqualTo(1);
        assertThat(first.isSameNodeAsBefore()).isFalse();
        assertThat(passed.isSameNodeAsBefore()).isTrue();
    }

    @Test
    void enter_sameTokenAsTheHoldBefore_countsARegressionNamingTheToken() {
        monitor.enter("t1", new Claim(PATH, EXCLUSIVE, token(12, 3), 1)).exit();

        monitor.enter("t2", new Claim(PATH, EXCLUSIVE, token(12, 3), 1)).exit(); // two holds never share a token

        SafetyReport report = monitor.report();
        assertThat(report.tokenRegressions()).isEqualTo(1);
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("token regression on " + PATH, "t2", "token " + token(12, 3), "node 0xc pass 3");
    }

    @Test
    void enter_writeWithTheTokenOfAnEarlierWrite_countsARegression() {
        monitor.enter("t1", new Claim(PATH, WRITE, token(12, 0), 1)).exit();

        monitor.enter("t2", new Claim(PATH, WRITE, token(12, 0), 1)).exit();

        assertThat(monitor.report().tokenRegressions()).isEqualTo(1);
    }

    @Test
    void enter_sameNodeWhileTheHoldBeforeStillHolds_isAnOverlap() {
        Hold first = monitor.enter("t1", new Claim(PATH, EXCLUSIVE, token(12, 0), 1));

        monitor.enter("t2", new Claim(PATH, EXCLUSIVE, token(12, 1), 1));

        SafetyReport report = monitor.report();
        assertThat(report.overlaps()).isEqualTo(1);
        assertThat(report.tokenRegressions()).isZero();
        first.exit();
    }

    @Test
    void enter_tokenBelowTheNewestAfterHoldsOnOneNode_countsARegression() {
        monitor.enter("t1", new Claim(PATH, EXCLUSIVE, token(12, 0), 1)).exit();
        monitor.enter("t2", new Claim(PATH, EXCLUSIVE, token(12, 1), 1)).exit();

        monitor.enter("bob", new Claim(PATH, EXCLUSIVE, token(11, 0), 2)).exit();

        assertThat(monitor.report().tokenRegressions()).isEqualTo(1);
    }

    @Test
    void enter_readersPassingOneNodeInAnyOrder_areNoRegressionAndHoldTheNodeBefore() {
        monitor.enter("writer", new Claim(PATH, WRITE, token(10, 0), 1)).exit();
        Hold second = monitor.enter("reader-2", new Claim(PATH, READ, token(12, 1), 2));
        Hold first = monitor.enter("reader-1", new Claim(PATH, READ, token(12, 0), 2));
        second.exit();
        first.exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isTrue();
        assertThat(report.sameNodeHolds()).isEqualTo(1);
    }

    @Test
    void nodeDeleted_whileHeld_theNextHolderBesideItIsAnExplainedOverlap() {
        Hold alice = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, token(12, 0), 1));

        monitor.nodeDeleted(PATH, 12);
        Hold bob = monitor.enter("bob", new Claim(PATH, EXCLUSIVE, token(14, 0), 2));

        assertThat(monitor.liveClaims(PATH)).extracting(Claim::sessionId).containsExactly(2L);
        alice.exit();
        bob.exit();
        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as("%s", report).isTrue();
        assertThat(report.explainedOverlaps()).isEqualTo(1);
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains("alice: a stranger deleted its node while it held", "bob");
        assertThat(report.lostHolds()).isEqualTo(1);
        assertThat(report.holdsOnDeletedNodes()).isZero();
    }

    @Test
    void nodeDeleted_holdGrantedOnTheNodeLaterBesideAnotherSessionsHold_isAViolation() {
        monitor.nodeDeleted(PATH, 12);
        monitor.nodeDeleteAnswered(PATH, 12);
        Hold bob = monitor.enter("bob", new Claim(PATH, EXCLUSIVE, token(14, 0), 2));

        Hold alice = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, token(12, 1), 1)); // a pass of the deleted node

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isFalse();
        assertThat(report.overlaps()).isEqualTo(1);
        assertThat(report.explainedOverlaps()).isZero();
        assertThat(report.tokenRegressions()).isZero();
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("overlap on " + PATH, "alice entered on a node a stranger had deleted", "bob");
        assertThat(report.lostHolds()).isEqualTo(1);
        assertThat(report.holdsOnDeletedNodes()).isEqualTo(1);
        assertThat(report.toString()).contains("on a deleted node 1 up to ");
        assertThat(report.firstHoldsOnDeletedNodes())
                .singleElement()
                .asString()
                .contains("hold on a deleted node of " + PATH, "alice", "node 0xc pass 1", "ms after the delete");
        assertThat(alice.isSameNodeAsBefore()).isFalse();
        alice.exit();
        bob.exit();
    }

    @Test
    void nodeDeleted_nextSessionHoldsWhileAWaiterIsGrantedTheDeletedNode_isAViolation() {
        monitor.nodeDeleted(PATH, 12); // the waiter's node, deleted by a stranger while it waited
        monitor.nodeDeleteAnswered(PATH, 12);
        Hold waiter = monitor.enter("waiter", new Claim(PATH, EXCLUSIVE, token(12, 0), 1));

        monitor.enter("next", new Claim(PATH, EXCLUSIVE, token(14, 0), 2)).exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isFalse();
        assertThat(report.overlaps()).isEqualTo(1);
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("waiter entered on a node a stranger had deleted", "next");
        waiter.exit();
    }

    @Test
    void nodeDeleted_holdGrantedOnTheNodeLaterWithNobodyBeside_isNoOverlapButCounted() {
        monitor.nodeDeleted(PATH, 12);
        monitor.nodeDeleteAnswered(PATH, 12);

        monitor.enter("alice", new Claim(PATH, EXCLUSIVE, token(12, 0), 1)).exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).isTrue();
        assertThat(report.holdsOnDeletedNodes()).isEqualTo(1);
        assertThat(report.lostHolds()).isEqualTo(1);
    }

    @Test
    void nodeDeleted_aHoldEnteredOnTheNodeBeforeTheDeletesAnswer_isEndedFromOutsideAndTheNextHolderBesideItExplained() {
        monitor.nodeDeleted(PATH, 12); // the delete is sent; the server may apply it after the waiter's grant
        Hold waiter = monitor.enter("waiter", new Claim(PATH, EXCLUSIVE, token(12, 0), 1));
        monitor.nodeDeleteAnswered(PATH, 12);

        monitor.enter("next", new Claim(PATH, EXCLUSIVE, token(14, 0), 2)).exit();
        waiter.exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as("%s", report).isTrue();
        assertThat(report.explainedOverlaps()).isEqualTo(1);
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains("waiter: entered while a stranger's delete of its node was in flight", "next");
        assertThat(report.lostHolds()).isEqualTo(1);
        assertThat(report.holdsOnDeletedNodes()).isZero();
    }

    @Test
    void nodeDeleted_aHoldEnteredAfterTheDeletesAnswerBeforeItsClientHeard_isEndedFromOutsideAndTheNextExplained() {
        monitor.nodeDeleted(PATH, 12);
        monitor.nodeDeleteAnswered(PATH, 12); // answered to the stranger; the waiter's client has not heard yet
        Hold waiter = monitor.enter(
                "waiter", new Claim(PATH, EXCLUSIVE, token(12, 0), 1).heldAtEntry(Optional.of(LockState.HELD)));

        monitor.enter("next", new Claim(PATH, EXCLUSIVE, token(14, 0), 2)).exit();
        waiter.exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as("%s", report).isTrue();
        assertThat(report.explainedOverlaps()).isEqualTo(1);
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains(
                        "waiter: entered after a stranger's delete of its node was answered, before its client heard");
        assertThat(report.lostHolds()).isEqualTo(1);
        assertThat(report.holdsOnDeletedNodes()).isEqualTo(1);
        assertThat(report.firstHoldsOnDeletedNodes()).singleElement().asString().contains("before its client heard");
    }

    @Test
    void nodeDeleted_aHoldEnteredAfterTheDeletesAnswerBeforeItsClientHeard_besideTheNextAlreadyInside_isExplained() {
        // the next holder's client heard of the delete first (another server) and took the lock because of it
        monitor.nodeDeleted(PATH, 12);
        monitor.nodeDeleteAnswered(PATH, 12);
        Hold next = monitor.enter("next", new Claim(PATH, READ, token(14, 0), 2));
        Hold waiter = monitor.enter(
                "waiter", new Claim(PATH, WRITE, token(12, 0), 1).heldAtEntry(Optional.of(LockState.HELD)));
        waiter.exit();
        next.exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as("%s", report).isTrue();
        assertThat(report.tokenRegressions()).isZero();
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains(
                        "waiter: entered after a stranger's delete of its node was answered, before its client heard",
                        "waiter (WRITE",
                        "while next (READ");
    }

    @Test
    void enter_onASessionWhoseEndIsInFlight_besideAHolderAlreadyInside_isExplained() {
        monitor.enter("first", new Claim(PATH, EXCLUSIVE, token(14, 0), 2));
        monitor.sessionEnded(1);
        monitor.enter("late", new Claim(PATH, EXCLUSIVE, token(12, 0), 1));

        SafetyReport report = monitor.report();
        assertThat(report.overlaps()).isZero();
        assertThat(report.tokenRegressions()).isZero();
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains("late: entered while the end of its session 0x1 was in flight");
    }

    @Test
    void enter_besideAHolderAlreadyInside_withBothLive_isAViolationNamingBoth() {
        monitor.enter("first", new Claim(PATH, EXCLUSIVE, token(14, 0), 2));
        monitor.enter("second", new Claim(PATH, EXCLUSIVE, token(15, 0), 1));

        assertThat(monitor.report().firstViolations())
                .singleElement()
                .asString()
                .contains("(both live): second", "while first");
    }

    @Test
    void nodeDeleted_aHoldEnteredAfterTheDeletesAnswerThatItsClientHeard_isAViolation() {
        monitor.nodeDeleted(PATH, 12);
        monitor.nodeDeleteAnswered(PATH, 12);
        Hold waiter = monitor.enter(
                "waiter", new Claim(PATH, EXCLUSIVE, token(12, 0), 1).heldAtEntry(Optional.of(LockState.LOST)));

        monitor.enter("next", new Claim(PATH, EXCLUSIVE, token(14, 0), 2)).exit();
        waiter.exit();

        SafetyReport report = monitor.report();
        assertThat(report.overlaps()).isEqualTo(1);
        assertThat(report.firstViolations())
                .singleElement()
                .asString()
                .contains("waiter entered on a node a stranger had deleted", "next");
    }

    @Test
    void enter_afterItsSessionEndedBeforeItsClientHeard_isEndedFromOutsideAndTheNextExplained() {
        monitor.sessionEnded(1);
        monitor.sessionEndAnswered(1);
        Hold late = monitor.enter(
                "late", new Claim(PATH, EXCLUSIVE, token(12, 0), 1).heldAtEntry(Optional.of(LockState.HELD)));

        monitor.enter("next", new Claim(PATH, EXCLUSIVE, token(14, 0), 2)).exit();
        late.exit();

        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as("%s", report).isTrue();
        assertThat(report.firstExplainedOverlaps())
                .singleElement()
                .asString()
                .contains("late: entered after its session 0x1 ended, before its client heard of it");
    }

    @Test
    void nodeDeleted_leavesTheHoldsOfOtherNodesAndPathsLive() {
        Claim alice = new Claim(PATH, READ, token(12, 0), 1);
        Claim bob = new Claim(PATH, READ, token(13, 0), 2);
        Claim carol = new Claim("/locks/b", EXCLUSIVE, token(12, 0), 3);
        monitor.enter("alice", alice);
        monitor.enter("bob", bob);
        monitor.enter("carol", carol);

        monitor.nodeDeleted(PATH, 12);

        assertThat(monitor.liveClaims(PATH)).containsExactly(bob);
        assertThat(monitor.liveClaims("/locks/b")).containsExactly(carol);
        assertThat(monitor.report().lostHolds()).isEqualTo(1);
    }

    @Test
    void enter_readWithATokenBelowAnotherReadsButAboveEveryWrite_isNoRegression() {
        monitor.enter("writer", new Claim(PATH, WRITE, 5, 1)).exit();
        Hold later = monitor.enter("reader-2", new Claim(PATH, READ, 12, 3));
        Hold earlier = monitor.enter("reader-1", new Claim(PATH, READ, 10, 2));
        later.exit();
        earlier.exit();

        assertThat(monitor.report().isClean()).isTrue();
    }

    @Test
    void enter_readWithATokenBelowAnEarlierWrite_countsARegression() {
        monitor.enter("writer", new Claim(PATH, WRITE, 12, 1)).exit();

        monitor.enter("reader", new Claim(PATH, READ, 10, 2)).exit();

        assertThat(monitor.report().tokenRegressions()).isEqualTo(1);
    }

    @Test
    void enter_writeWithATokenBelowAnEarlierRead_countsARegression() {
        monitor.enter("reader", new Claim(PATH, READ, 12, 1)).exit();

        monitor.enter("writer", new Claim(PATH, WRITE, 10, 2)).exit();

        assertThat(monitor.report().tokenRegressions()).isEqualTo(1);
    }

    @Test
    void enter_onOtherPaths_neitherOverlapsNorRegresses() {
        Hold a = monitor.enter("alice", new Claim("/locks/a", EXCLUSIVE, 12, 1));
        Hold b = monitor.enter("bob", new Claim("/locks/b", EXCLUSIVE, 10, 2));
        a.exit();
        b.exit();

        assertThat(monitor.report().isClean()).isTrue();
    }

    @Test
    void liveClaims_listsHoldsNotExitedOfSessionsAlive() {
        Claim alice = new Claim(PATH, READ, 10, 1);
        Claim bob = new Claim(PATH, READ, 11, 2);
        Claim carol = new Claim(PATH, READ, 12, 3);
        monitor.enter("alice", alice);
        monitor.enter("bob", bob).exit();
        monitor.enter("carol", carol);
        monitor.sessionEnded(3);
        monitor.sessionEndAnswered(3);

        assertThat(monitor.liveClaims(PATH)).containsExactly(alice);
        assertThat(monitor.liveClaims("/elsewhere")).isEmpty();
    }

    @Test
    void exit_twice_throwsIllegalStateNamingOwnerAndPath() {
        Hold hold = monitor.enter("alice", new Claim(PATH, EXCLUSIVE, 10, 1));
        hold.exit();

        assertThatThrownBy(hold::exit)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("alice")
                .hasMessageContaining(PATH);
    }

    @Test
    void report_waiterNotFinished_countsItStuck() {
        SafetyMonitor.Waiter waiter = monitor.startWaiting("alice", PATH);
        monitor.startWaiting("bob", PATH).finished();

        SafetyReport report = monitor.report();

        assertThat(report.stuckWaiters()).isEqualTo(1);
        assertThat(report.waits()).isEqualTo(2);
        assertThat(report.isClean()).isFalse();
        assertThat(report.firstViolations()).singleElement().asString().contains("stuck waiter", "alice", PATH);
        waiter.finished();
        assertThat(monitor.report().isClean()).isTrue();
    }

    @Test
    void report_withStuckAfter_countsOnlyWaitersOlderThanThat() {
        monitor.startWaiting("alice", PATH);

        assertThat(monitor.report(Duration.ofHours(1)).stuckWaiters()).isZero();
        assertThat(monitor.report(Duration.ZERO).stuckWaiters()).isEqualTo(1);
    }

    @Test
    void nodesLeft_countsEveryNodeAsLeaked() {
        monitor.nodesLeft(PATH, List.of("_c_1-lock-0000000001", "_c_2-lock-0000000002"));

        SafetyReport report = monitor.report();
        assertThat(report.leakedNodes()).isEqualTo(2);
        assertThat(report.firstViolations()).hasSize(2).allSatisfy(line -> assertThat(line)
                .contains(PATH));
    }

    @Test
    void report_keepsTheFirstTwentyViolationsAndCountsThemAll() {
        for (int i = 0; i < 30; i++) {
            monitor.enter("owner-" + i, new Claim(PATH, EXCLUSIVE, 100 - i, i));
        }

        SafetyReport report = monitor.report();
        assertThat(report.overlaps()).isEqualTo(29 * 30 / 2);
        assertThat(report.tokenRegressions()).isEqualTo(29);
        assertThat(report.firstViolations()).hasSize(20);
    }

    @Test
    void nodeDeleted_nullPath_throwsNamingTheParameter() {
        assertThatThrownBy(() -> monitor.nodeDeleted(null, 12))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("lockPath");
    }

    @Test
    void claim_nullPathOrMode_throwsNamingTheParameter() {
        assertThatThrownBy(() -> new Claim(null, EXCLUSIVE, 1, 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("lockPath");
        assertThatThrownBy(() -> new Claim(PATH, null, 1, 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("mode");
    }

    private static long token(long creationZxid, int pass) {
        return FencingToken.of(creationZxid, pass);
    }
}
