/**
 * {@code gstore top}: a live terminal view of a G-Store cluster ({@link org.gstore.cli.top.TopCommand}), sampled from
 * each region server's {@code /prometheus} and G-Store's operator endpoints ({@link org.gstore.cli.top.TopSource}),
 * rendered as text ({@link org.gstore.cli.top.TopScreen}) and drawn with JLine.
 */
package org.gstore.cli.top;
