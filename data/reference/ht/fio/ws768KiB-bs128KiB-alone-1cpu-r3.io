rchar: 78192642513
wchar: 5982
syscr: 596752
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
