rchar: 25217182662
wchar: 13655
syscr: 192610
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
