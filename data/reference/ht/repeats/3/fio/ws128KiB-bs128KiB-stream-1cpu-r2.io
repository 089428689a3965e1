rchar: 91466172881
wchar: 5984
syscr: 698021
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
