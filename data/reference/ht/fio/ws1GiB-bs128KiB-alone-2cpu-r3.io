rchar: 88945175604
wchar: 18969
syscr: 678819
syscw: 5
read_bytes: 28672
write_bytes: 12288
cancelled_write_bytes: 0
