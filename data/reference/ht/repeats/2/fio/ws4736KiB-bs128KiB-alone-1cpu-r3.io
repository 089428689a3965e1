rchar: 99999394746
wchar: 13667
syscr: 763154
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
