/**
 * The {@code gstore} command line ({@link org.gstore.cli.GStore}, one usage text): the casino demo, {@code bench}
 * and {@code scale} over the workloads of {@code org.gstore.bench}, the process cluster ({@code cluster}), its chaos
 * run ({@code chaos}) and history checker ({@code check-history}), over {@code org.gstore.chaos} and
 * {@code org.gstore.history} (the gstore-verify module), and {@code status} of a running cluster. Runs against an
 * embedded cluster, or any cluster running G-Store with {@code --conf}.
 */
package org.gstore.cli;
