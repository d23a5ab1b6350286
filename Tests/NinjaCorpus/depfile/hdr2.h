/* hdr2 */
