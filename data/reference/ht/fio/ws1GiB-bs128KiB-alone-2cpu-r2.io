rchar: 92732238845
wchar: 18969
syscr: 707710
syscw: 5
read_bytes: 450560
write_bytes: 12288
cancelled_write_bytes: 0
