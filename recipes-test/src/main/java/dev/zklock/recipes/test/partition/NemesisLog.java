package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.HistoryWriter;
import java.nio.file.Path;

/**
 * The nemesis's history file, written by the house's one {@link HistoryWriter}: one flushed line per event, {@code
 * <nanos> nemesis <type> <f> - <value>}, {@code f} the fault kind's history name and the value its targets (TABs and
 * line breaks of a reason turned to spaces). A fault is an {@code invoke} when made and an {@code ok} when healed, a
 * {@code fail} with the reason when it could not be made; a stranger's delete, whose window the stranger records
 * itself, is one {@code info} line saying what was asked. Safe for use by multiple threads.
 */
final class NemesisLog implements AutoCloseable {
    static final String PROCESS = "nemesis";

    private final HistoryWriter writer;

    NemesisLog(Path file) {
        this.writer = HistoryWriter.open(file);
    }

    /** Writes one event of {@code type} ({@code invoke}, {@code ok}, {@code fail}, {@code info}) for {@code kind}. */
    void write(String type, NemesisFault kind, String value) {
        String clean = value.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
        writer.record(
                PROCESS, type, kind.historyName(), HistoryEvent.NONE, clean.isBlank() ? HistoryEvent.NONE : clean);
    }

    @Override
    public void close() {
        writer.close();
    }
}
