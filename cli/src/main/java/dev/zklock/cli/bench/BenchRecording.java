package dev.zklock.cli.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import jdk.jfr.Recording;

/**
 * A JDK Flight Recorder recording of a bench run ({@code zklock bench --jfr FILE}): zklock's own events
 * ({@code dev.zklock.Acquisition}, {@code dev.zklock.Hold}, {@code dev.zklock.HoldStateChange}), every one (their
 * default threshold of 20 ms, which a user's recording keeps, is set to 0 here), written to the file as the run goes
 * and completed when it ends. Open the file in JDK Mission Control, or print it with
 * {@code jfr print --events dev.zklock.Acquisition FILE}. Confined to the bench's thread.
 */
final class BenchRecording implements AutoCloseable {
    static final String[] EVENTS = {"dev.zklock.Acquisition", "dev.zklock.Hold", "dev.zklock.HoldStateChange"};

    private final Recording recording;

    private BenchRecording(Recording recording) {
        this.recording = recording;
    }

    /** Starts recording zklock's events into {@code file}; null for none (no file given). */
    static BenchRecording start(Path file) throws IOException {
        if (file == null) {
            return null;
        }
        Recording recording = new Recording();
        recording.setName("zklock bench");
        for (String event : EVENTS) {
            recording.enable(event).withThreshold(Duration.ZERO); // every one: a recording's default skips short ones
        }
        recording.setToDisk(true);
        recording.setDestination(file);
        recording.start();
        return new BenchRecording(recording);
    }

    /** Stops the recording, which completes the file. */
    @Override
    public void close() {
        recording.stop();
        recording.close();
    }
}
