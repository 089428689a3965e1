rchar: 12770716616
wchar: 13654
syscr: 12398
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
