/**
 * A leaf: every {@code gstore.*} setting of the region-server side, read and checked once
 * ({@link org.gstore.coprocessor.config.GStoreConfig}). Calls nothing of G-Store's region-server side; every layer
 * may call it.
 */
package org.gstore.coprocessor.config;
