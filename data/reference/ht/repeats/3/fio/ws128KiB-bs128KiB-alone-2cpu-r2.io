rchar: 126383664171
wchar: 18982
syscr: 964453
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
