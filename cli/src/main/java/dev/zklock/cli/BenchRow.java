package dev.zklock.cli;

/**
 * One line of the bench report: a figure for zklock and for Curator, their ratio, and the target it should keep.
 * Figures not measured are NaN; the raw floor's rows have only the first figure.
 *
 * @param group the recipe pair, e.g. "ZkReentrantLock vs InterProcessMutex"
 * @param scenario e.g. "8 clients"
 * @param metric e.g. "acquisitions/s"
 * @param zklock zklock's figure (the raw floor's, in its rows)
 * @param curator Curator's figure, NaN in the raw floor's rows
 * @param target the bound from the issue, or null
 */
record BenchRow(String group, String scenario, String metric, double zklock, double curator, Target target) {

    /** Returns zklock's figure divided by Curator's, or NaN. */
    double ratio() {
        return Double.isNaN(zklock) || Double.isNaN(curator) || curator == 0 ? Double.NaN : zklock / curator;
    }

    /** Tells whether the row has a target and keeps it. */
    boolean isMet() {
        return target != null && target.isMet(this);
    }
}
