rchar: 141972581426
wchar: 18981
syscr: 1083385
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
