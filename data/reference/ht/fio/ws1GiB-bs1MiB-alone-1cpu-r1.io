rchar: 8769350602
wchar: 13654
syscr: 8581
syscw: 5
read_bytes: 77824
write_bytes: 28672
cancelled_write_bytes: 0
