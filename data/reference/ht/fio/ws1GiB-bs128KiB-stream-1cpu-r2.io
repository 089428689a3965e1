rchar: 38593342416
wchar: 13661
syscr: 294662
syscw: 5
read_bytes: 53248
write_bytes: 49152
cancelled_write_bytes: 0
