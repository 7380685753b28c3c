package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockTracer;
import java.util.Optional;
import jdk.jfr.Recording;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Whether an acquisition is recorded at all: only when a JFR recording takes zklock's events or the client has a
 * tracer; otherwise no record is made, no request is counted, and a hold carries nothing (the client is never started:
 * no ZooKeeper is needed to decide).
 */
final class AcquisitionRecordTest {
    private final CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
    private final LockPath path = new LockPath(client, "/locks/a", "lock-", LockDriver.exclusive(), null);

    @AfterEach
    void closeClient() {
        client.close();
    }

    @Test
    void start_withNoRecordingAndNoTracer_makesNoRecordAndCountsNoRequest() {
        AcquisitionRecord record = AcquisitionRecord.start(path, "exclusive");

        assertThat(record).isNull();
        assertThat(RequestTally.current()).isNull();
        Hold hold = new LockNode(path, "_c_x-lock-0000000001", 1L, 1L);
        assertThat(AcquisitionRecord.ended(record, Optional.of(hold))).containsSame(hold);
    }

    @Test
    void start_whileARecordingRunsThatLeavesZklocksEventsOut_makesNoRecord() {
        try (Recording recording = new Recording()) {
            recording.enable("jdk.JavaMonitorWait");
            recording.disable("dev.zklock.Acquisition");
            recording.disable("dev.zklock.Hold");
            recording.disable("dev.zklock.HoldStateChange");
            recording.start();

            AcquisitionRecord record = AcquisitionRecord.start(path, "exclusive");

            AcquisitionRecord.ended(record, Optional.empty());
            assertThat(record).isNull();
        }
    }

    /** A recording that does not name them takes them: JFR's default for an event of the application's. */
    @Test
    void start_whileARecordingRunsThatDoesNotNameThem_records() {
        try (Recording recording = new Recording()) {
            recording.start();

            AcquisitionRecord record = AcquisitionRecord.start(path, "exclusive");

            AcquisitionRecord.ended(record, Optional.empty());
            assertThat(record).isNotNull();
        }
    }

    @Test
    void start_whileARecordingTakesTheAcquisitionEvent_countsTheThreadsRequestsUntilItEnds() {
        AcquisitionRecord record;
        try (Recording recording = new Recording()) {
            recording.enable("dev.zklock.Acquisition");
            recording.start();

            record = AcquisitionRecord.start(path, "exclusive");
            assertThat(record).isNotNull();
            RequestTally.sent();
            assertThat(AcquisitionRecord.tallyOf(record).count()).isEqualTo(1);
            AcquisitionRecord.ended(record, Optional.empty());
        }
        assertThat(RequestTally.current()).isNull();
    }

    @Test
    void start_withATracer_recordsWithNoRecording() {
        ClientContext.of(client).metrics().addTracer(new LockTracer() {
            @Override
            public AcquisitionSpan acquisitionStarted(String lockPath, String kind) {
                return null;
            }

            @Override
            public HoldSpan holdStarted(String lockPath, String kind) {
                return null;
            }
        });

        AcquisitionRecord record = AcquisitionRecord.start(path, "exclusive");

        AcquisitionRecord.ended(record, Optional.empty());
        assertThat(record).isNotNull();
    }
}
