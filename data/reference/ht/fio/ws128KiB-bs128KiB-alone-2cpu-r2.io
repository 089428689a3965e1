rchar: 183014370352
wchar: 18990
syscr: 1396517
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
