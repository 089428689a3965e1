rchar: 10705021893
wchar: 13655
syscr: 10428
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
